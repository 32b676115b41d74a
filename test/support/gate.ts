/** A gate a test opens when it has seen what it waits for (ordering by events, not delays). */
export interface Gate {
  /** Settles when {@link Gate.open} is called. */
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
