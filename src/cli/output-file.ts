import { dirname } from "node:path";
import { errorCode, errorMessage } from "../events/errors.js";

/**
 * Writes `data` to `target` (an absolute `--out` path, or the session view's file) as the file
 * tools write a file (tools/file-writing.ts `writeFileAtomically`): a new file is readable by the
 * user alone (0600); one already there keeps its owner, group and mode, and is replaced whole
 * through a temporary file beside it, so a full disk leaves neither an empty nor a cut file (the
 * old one stays), or written in place where a rename would lose what makes it that file (a folder
 * the user cannot write, an owner the user cannot give). A file the user may not write is refused
 * (`Permission denied`), nothing written.
 * @throws Error naming the file that could not be written and why (`no folder /x`), never a bare
 * ENOENT, which the sessions commands would take for a missing session (trial finding 9).
 */
export async function writeOutputFile(target: string, data: string | Buffer): Promise<void> {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  try {
    // Loaded where a file is written: not on a command's start-up path.
    const { writeFileAtomically } = await import("../tools/file-writing.js");
    await writeFileAtomically(target, bytes, new AbortController().signal, target, 0o600);
  } catch (error) {
    const reason =
      errorCode(error) === "ENOENT" ? `no folder ${dirname(target)}` : errorMessage(error);
    throw new Error(`cannot write ${target}: ${reason}`);
  }
}
