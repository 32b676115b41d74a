/**
 * Listeners of a prompt's abort signal that come and go with its tool calls and permission
 * questions. Node warns on stderr past ten listeners on one `AbortSignal`
 * ("MaxListenersExceededWarning: Possible EventTarget memory leak detected"), so a reply of more
 * than ten parallel calls, each waiting on the signal, printed it for no leak. One listener per
 * signal serves them all here; `AbortSignal.any`'s composite signals cost about 0.2 M
 * instructions more per call on Node 20 (bench/notes/turn20.md).
 */

const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts (at once if it has), unless the returned function
 * was called first. Listeners run in the order they were added.
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => {};
  }
  let listeners = waiting.get(signal);
  if (listeners === undefined) {
    const fresh = new Set<() => void>();
    listeners = fresh;
    waiting.set(signal, fresh);
    signal.addEventListener(
      "abort",
      () => {
        const due = [...fresh];
        fresh.clear();
        for (const each of due) {
          each();
        }
      },
      { once: true },
    );
  }
  const added = listeners;
  // A wrapper of its own, so that one listener added twice is two entries.
  const entry = () => listener();
  added.add(entry);
  return () => {
    added.delete(entry);
  };
}
