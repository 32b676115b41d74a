import { createHook } from "node:async_hooks";

/** A running count of the file-system requests sent to Node's thread pool (see below). */
export interface ThreadPoolCounter {
  /** Requests sent since the counter started (and before {@link stop}). */
  count(): number;
  stop(): void;
}

/**
 * Counts the file-system requests sent to Node's thread pool from now on: async_hooks'
 * `FSREQCALLBACK`, `FSREQPROMISE` and `FILEHANDLECLOSEREQ` resources made (a synchronous call
 * makes none). A count, never a time: each request costs the main thread its dispatch, wake-up
 * and callback.
 */
export function threadPoolCounter(): ThreadPoolCounter {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type.startsWith("FSREQ") || type.startsWith("FILEHANDLE")) {
        count += 1;
      }
    },
  });
  hook.enable();
  return { count: () => count, stop: () => hook.disable() };
}

/** How many file-system requests `run` sends Node's thread pool ({@link threadPoolCounter}). */
export async function threadPoolRequests(run: () => Promise<void>): Promise<number> {
  const counter = threadPoolCounter();
  try {
    await run();
  } finally {
    counter.stop();
  }
  return counter.count();
}
