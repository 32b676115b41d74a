import type { LineRange } from "./define-tool.js";
import { fileLines } from "./file-lines.js";
import { withoutByteOrderMark } from "./text-decoding.js";

/**
 * The text of a UTF-8 file a `view` shows, when the client (an editor) reads files (`read`: the
 * client's `readTextFile` of the file, ClientCapabilities in define-tool.ts): `diskText` (the file's text on disk) when `lines` are given and the editor's lines
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
  lines: LineRange | undefined,
): Promise<string> {
  if (lines !== undefined) {
    const shown = fileLines(withoutByteOrderMark(await read(lines)));
    const onDisk = fileLines(diskText).slice(lines.line - 1, lines.line - 1 + lines.limit);
    if (shown.length === onDisk.length && shown.every((line, index) => line === onDisk[index])) {
      return diskText;
    }
  }
  return withoutByteOrderMark(await read());
}
