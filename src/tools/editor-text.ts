import type { LineRange } from "./define-tool.js";
import { fileLines } from "./file-lines.js";
import { withoutByteOrderMark } from "./text-decoding.js";
import { textHash } from "./tool-support.js";

/**
 * The text of a UTF-8 file a `view` shows, when the client (an editor) reads files (`read`: the
 * client's `readTextFile` of the file, ClientCapabilities in define-tool.ts): `diskText` (the
 * file's text on disk) when `range` (first and last line, 1-based) is given and the editor's lines
 * there, asked for alone (ACP `fs/read_text_file` with `line` and `limit`), are the disk's; else
 * the editor's whole text, unsaved changes included (a second request when the lines differed).
 * So a `view_range` fetches only its lines from the editor when the editor holds no unsaved change
 * in them, and the line count and `knownFile` hash come from the disk's text then; a view of the
 * whole file reads the whole file. A leading byte order mark is dropped. Throws what the client's
 * request throws.
 */
export async function editorText(
  read: (lines?: LineRange) => Promise<string>,
  diskText: string,
  range: { start: number; last: number } | undefined,
): Promise<string> {
  if (range !== undefined) {
    const lines = { line: range.start, limit: range.last - range.start + 1 };
    const shown = fileLines(withoutByteOrderMark(await read(lines)));
    const onDisk = fileLines(diskText).slice(range.start - 1, range.last);
    if (shown.length === onDisk.length && shown.every((line, index) => line === onDisk[index])) {
      return diskText;
    }
  }
  return withoutByteOrderMark(await read());
}

/**
 * What an `edit` refused as stale adds (`editorText` records the disk text's hash for a
 * `view_range`, which showed only lines where the editor's buffer and the disk agree): advice to
 * view the file whole when the model knows the disk's text (`knownHash`, `diskText`) and the
 * buffer (`editorText`) holds unsaved changes; else nothing.
 */
export function unsavedChangesNote(
  editorText: string,
  diskText: string,
  knownHash: string | undefined,
): string {
  return editorText !== diskText && knownHash === textHash(diskText)
    ? " The editor holds changes to it not saved to disk, which a view_range shows only in its " +
        "own lines: view it without view_range."
    : "";
}
