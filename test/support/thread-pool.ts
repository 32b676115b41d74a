import { createHook } from "node:async_hooks";

/**
 * How many file-system requests `run` sends Node's thread pool: async_hooks' `FSREQCALLBACK`,
 * `FSREQPROMISE` and `FILEHANDLECLOSEREQ` resources made meanwhile (a synchronous call makes none).
 * A count, never a time: each request costs the main thread its dispatch, wake-up and callback.
 */
export async function threadPoolRequests(run: () => Promise<void>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type.startsWith("FSREQ") || type.startsWith("FILEHANDLE")) {
        count += 1;
      }
    },
  });
  hook.enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return count;
}
