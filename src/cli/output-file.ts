import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { errorCode, errorMessage } from "../events/errors.js";

/**
 * Writes `data` to `target` (an absolute `--out` path), readable by the user alone.
 * @throws Error naming the file that could not be written and why (`no folder /x`), never a bare
 * ENOENT, which the sessions commands would take for a missing session (trial finding 9).
 */
export async function writeOutputFile(target: string, data: string | Buffer): Promise<void> {
  try {
    const handle = await open(target, "w", 0o600);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const reason =
      errorCode(error) === "ENOENT" ? `no folder ${dirname(target)}` : errorMessage(error);
    throw new Error(`cannot write ${target}: ${reason}`);
  }
}
