/**
 * What cancelled a prompt, carried as the reason of its abort signal and recorded as the `abort`
 * event's `reason` (`cancelled by SIGTERM`); a cancel that does not say is the user's.
 */
class CancelledBy extends DOMException {
  constructor(by: string) {
    // Named AbortError, as the default abort reason is: code that looks at the name still sees one.
    super(`cancelled by ${by}`, "AbortError");
  }
}

/** The abort reason for a cancel by `by` (a signal's name, …); `undefined`: the default one. */
export function cancelReason(by: string | undefined): DOMException | undefined {
  return by === undefined ? undefined : new CancelledBy(by);
}

/** The `abort` event's reason for a prompt stopped through `signal`. */
export function abortReason(signal: AbortSignal): string {
  return signal.reason instanceof CancelledBy ? signal.reason.message : "cancelled by the user";
}
