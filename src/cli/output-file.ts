import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorCode, errorMessage } from "../events/errors.js";
import { randomUUID } from "../events/random-id.js";

/**
 * Writes `data` to `target` (an absolute `--out` path, or the session view's file), readable by
 * the user alone, whole or not at all: into a new file beside it, renamed over `target` once
 * written (as `edit` writes, tools/file-writing.ts), so a full disk leaves neither an empty nor a
 * cut file, and an older file at `target` stays as it was; the new file is removed on failure.
 * @throws Error naming the file that could not be written and why (`no folder /x`), never a bare
 * ENOENT, which the sessions commands would take for a missing session (trial finding 9).
 */
export async function writeOutputFile(target: string, data: string | Buffer): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    const reason =
      errorCode(error) === "ENOENT" ? `no folder ${dirname(target)}` : errorMessage(error);
    throw new Error(`cannot write ${target}: ${reason}`);
  }
}
