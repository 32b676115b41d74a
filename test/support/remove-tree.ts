import { rm } from "node:fs/promises";

/**
 * Removes a temporary folder and everything in it; a folder already gone is no error. A child
 * process that is exiting (a server whose app died, a CLI the SDK stopped) may still be writing
 * into it, Node's code cache above all, which it flushes at exit: `rmdir` then fails with
 * ENOTEMPTY. Node retries that (and EBUSY, EPERM) with a linear back-off, 100 ms more each try:
 * ten tries wait up to 5.5 s in all.
 */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 10 });
}
