import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool.js";
import { listDirectory } from "./directory-listing.js";
import { fileLines } from "./file-lines.js";
import { readImage } from "./image-file.js";
import { type DecodedFile, decodeFileBytes } from "./text-decoding.js";
import {
  BLANK_PATH,
  errorResult,
  hiddenBelow,
  isGivenPath,
  knownFile,
  missingPathMessage,
  resolveLinks,
  resolveToolPath,
  runGuarded,
  statIfExists,
  textResult,
} from "./tool-support.js";

/** Lines shown by one call before the output is cut. */
const MAX_VIEW_LINES = 2_000;
/** Characters of output (about 100 KB) shown by one call before the output is cut. */
const MAX_VIEW_CHARACTERS = 100_000;
/** Characters kept of a single line (minified code, data); the rest is replaced by a note. */
const MAX_LINE_CHARACTERS = 2_000;
/**
 * Files larger than this (bytes) are not viewed whole: only a `view_range` of such a file is
 * shown, read from disk up to its last line (file-line-range.ts `readFileLinesUpTo`). `edit`
 * refuses them, and `create` does not read them to compare (neither could have been viewed whole).
 */
export const MAX_VIEW_FILE_BYTES = 50 * 1024 * 1024;
/**
 * Files up to this size (bytes) are read on the calling thread ({@link readSmallFile}); larger
 * ones through Node's thread pool, cancellable while they are read.
 */
const READ_AT_ONCE_BYTES = 256 * 1024;
/**
 * Files larger than this (bytes) are read a piece at a time (file-line-range.ts), keeping only
 * the lines shown, when they are UTF-8 read from disk; smaller ones are read whole.
 */
const READ_IN_PIECES_BYTES = 1024 * 1024;

const viewInput = z.object({
  path: z.string().refine(isGivenPath, BLANK_PATH.file),
  // Refused at the edge rather than read as another range (trial 43 F6: [0, 2] and [1.5, 3]
  // were taken as [1, 2] and [1, 3]); an end before the start is refused by `showNumberedLines`.
  view_range: z
    .array(z.number().int("line numbers are whole numbers"))
    .min(1)
    .max(2)
    .refine((range) => (range[0] ?? 1) >= 1, "lines are numbered from 1: start at 1 or after")
    .optional()
    .describe("[start, end], 1-based, inclusive; end -1 = end of file"),
});

/** Arguments of {@link viewTool}, as Copilot CLI's `view` takes them. */
export type ViewInput = z.infer<typeof viewInput>;

/**
 * `view {path, view_range?}`: a text file as numbered lines (`1. text`, Copilot CLI's format), or a
 * directory as a two-level listing. Binary files and images give a one-line notice, never bytes
 * (images as content: `readImage` in image-file.ts). UTF-8 text is read through the client when
 * it offers `readTextFile`, so the model sees the editor's unsaved changes (a `view_range` asks for
 * its lines: editor-text.ts). A file's result carries its `knownFile` (the hash of its whole text,
 * also for a `view_range`), which `edit` checks.
 */
export const viewTool = defineTool<ViewInput>({
  name: "view",
  description:
    'Read a text file as numbered lines ("N. text") or list a directory (2 levels, gitignored ' +
    "entries hidden). Use view_range to read part of a long file. Output stops after 2000 lines.",
  input: viewInput,
  kind: "read",
  mutates: false,
  changesNothing: true,
  execute: (input, context) =>
    runGuarded("view", context.signal, () => view(input, context), {
      cwd: context.cwd,
      outcome: "nothing was read",
    }),
  scope: (input, cwd) => ({
    title: `Read ${input.path}`,
    paths: [resolveToolPath(cwd, input.path)],
  }),
});

async function view(input: ViewInput, context: ToolContext): Promise<ToolResult> {
  const absolutePath = resolveToolPath(context.cwd, input.path);
  const stats = statIfExists(absolutePath);
  if (stats === undefined) {
    return errorResult(missingPathMessage(input.path));
  }
  if (stats.isDirectory()) {
    const hidden = hiddenBelow(context, absolutePath);
    return textResult(await listDirectory(absolutePath, context.signal, hidden));
  }
  if (!stats.isFile()) {
    // Devices and pipes (/dev/zero, a FIFO) could be read forever.
    return errorResult(`Path ${input.path} is not a regular file or directory.`);
  }
  if (stats.size > MAX_VIEW_FILE_BYTES) {
    return input.view_range === undefined
      ? errorResult(
          `${tooLargeToViewWhole(stats.size)}. Use view_range [start, end] to read up to ` +
            `${MAX_VIEW_LINES} of its lines, ${READ_OTHERWISE}.`,
        )
      : viewRangeOfHugeFile(absolutePath, input.view_range, stats.size, context.signal);
  }
  const readThroughClient = context.client?.readTextFile;
  if (stats.size > READ_IN_PIECES_BYTES && readThroughClient === undefined) {
    const shown = await viewInPieces(absolutePath, input.view_range, context.signal);
    if (shown !== undefined) {
      return shown;
    }
  }
  const bytes =
    (stats.size <= READ_AT_ONCE_BYTES ? readSmallFile(absolutePath) : undefined) ??
    (await readFile(absolutePath, { signal: context.signal }));
  const decoded = decodeFileBytes(bytes);
  if (decoded.kind === "binary") {
    const image = decoded.isImage ? await readImage(absolutePath) : undefined;
    if (image !== undefined) {
      const content = `Image file ${input.path} (${image.mimeType}, ${bytes.length} bytes), attached.`;
      return { content, isError: false, images: [image] };
    }
    return textResult(describeBinaryFile(decoded, bytes.length));
  }
  // The client (editor) reads UTF-8 text, unsaved changes included; other encodings come from disk.
  const text =
    readThroughClient === undefined || decoded.encoding !== "utf-8"
      ? decoded.text
      : await (await import("./editor-text.js")).editorText(
          (lines) => readThroughClient.call(context.client, absolutePath, context.signal, lines),
          decoded.text,
          input.view_range === undefined ? undefined : linesToRead(input.view_range),
        );
  const shown = showLines(text, input.view_range, encodingNote(decoded));
  // Part of the file shown or all of it, the model now knows this text (tool-support.ts).
  return shown.isError
    ? shown
    : { ...shown, knownFile: knownFile(resolveLinks(absolutePath), text) };
}

/**
 * The bytes of the regular file at `path` if it holds 1 to {@link READ_AT_ONCE_BYTES} bytes, read
 * on the calling thread: opened (without waiting, should a pipe have taken the file's place since
 * its `stat`), checked, read and closed in microseconds of the kernel's time (tens for 256 KiB
 * from the page cache), where `readFile` made four thread-pool round trips or more (open, stat,
 * read, close), each costing the main thread its request, wake-up and callback
 * (bench/notes/turn24.md). Undefined when
 * the file is empty (files of `/proc` say so and hold text: read as before) or no longer such a
 * file; then `readFile` reads it as it reads larger files. Throws the open's or read's error, as
 * `readFile` would (`EACCES: permission denied, open '…'`).
 */
function readSmallFile(path: string): Buffer | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size === 0 || stats.size > READ_AT_ONCE_BYTES) {
      return undefined;
    }
    const bytes = Buffer.allocUnsafeSlow(stats.size);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) {
        break;
      }
      length += read;
    }
    return length === bytes.length ? bytes : bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

function describeBinaryFile(decoded: DecodedFile & { kind: "binary" }, size: number): string {
  if (decoded.isImage) {
    return (
      `Image file (${decoded.mediaType}, ${size} bytes): too large to attach (over 5 MB) or of a ` +
      "type models do not take."
    );
  }
  const label = decoded.mediaType === undefined ? "" : `${decoded.mediaType}, `;
  return `Binary file (${label}${size} bytes): not shown as text.`;
}

function encodingNote(decoded: DecodedFile & { kind: "text" }): string | undefined {
  switch (decoded.encoding) {
    case "utf-8":
      return undefined;
    case "windows-1252":
      return "[The file is not valid UTF-8; it was decoded as windows-1252 (Latin-1).]";
    default:
      return `[The file is ${decoded.encoding.toUpperCase()} with a byte order mark.]`;
  }
}

/**
 * Numbers the lines of `text` ({@link fileLines}: a final newline starts no line) within `range`
 * and cuts the output at the line and character limits, ending with a note that says which lines
 * were shown and how to read on.
 */
function showLines(
  text: string,
  range: readonly number[] | undefined,
  note: string | undefined,
): ToolResult {
  const lines = fileLines(text);
  return showNumberedLines(lines.length, (lineNumber) => lines[lineNumber - 1] ?? "", range, note);
}

/**
 * A `view` of part of a big UTF-8 file read from disk, holding only the lines it may show
 * (file-line-range.ts); undefined when the file is not such text (the caller reads it whole).
 */
async function viewInPieces(
  path: string,
  range: readonly number[] | undefined,
  signal: AbortSignal,
): Promise<ToolResult | undefined> {
  const { readFileLineRange } = await import("./file-line-range.js");
  const { start, last } = linesToRead(range);
  const read = await readFileLineRange(path, start, last, signal, MAX_LINE_CHARACTERS);
  if (read === undefined) {
    return undefined;
  }
  const shown = showNumberedLines(read.total, keptLineAt(read, start), range, undefined);
  const known = { path: resolveLinks(path), sha256: read.sha256 };
  return shown.isError ? shown : { ...shown, knownFile: known };
}

/** How a refusal of a file over {@link MAX_VIEW_FILE_BYTES} begins: its size and the limit. */
function tooLargeToViewWhole(size: number): string {
  return `File is too large to view whole (${size} bytes; the limit is ${MAX_VIEW_FILE_BYTES} bytes)`;
}

/** How a refusal ends: the other tools that read part of a file. */
const READ_OTHERWISE = "grep to find lines, or bash (e.g. sed -n '100,200p') to print a part";

/**
 * A `view_range` of a file over {@link MAX_VIEW_FILE_BYTES}: its UTF-8 text read from disk only up
 * to the last line shown (file-line-range.ts `readFileLinesUpTo`), keeping only the lines shown,
 * so time follows the range's end and memory the range, never the file. Read from disk even when
 * the client reads files (it would read the whole file); no `knownFile`, since `edit` refuses
 * such a file. A file that is not plain UTF-8 text is refused.
 */
async function viewRangeOfHugeFile(
  path: string,
  range: readonly number[],
  size: number,
  signal: AbortSignal,
): Promise<ToolResult> {
  const { readFileLinesUpTo } = await import("./file-line-range.js");
  const { start, last } = linesToRead(range);
  const read = await readFileLinesUpTo(path, start, last, signal, MAX_LINE_CHARACTERS);
  if (read === undefined) {
    return errorResult(
      `${tooLargeToViewWhole(size)}, and a view_range reads only UTF-8 text: this file is binary ` +
        `or in another encoding. Use ${READ_OTHERWISE}.`,
    );
  }
  return showNumberedLines(read.total, keptLineAt(read, start), range);
}

/**
 * Line `n` of lines read from line `start` on, cut to {@link MAX_LINE_CHARACTERS} as they were
 * read (file-line-range.ts), with the length of the whole line when it was cut.
 */
function keptLineAt(
  read: { lines: readonly string[]; lengths: ReadonlyMap<number, number> },
  start: number,
): (lineNumber: number) => ShownLine {
  return (lineNumber) => {
    const text = read.lines[lineNumber - start] ?? "";
    const length = read.lengths.get(lineNumber);
    return length === undefined ? text : { text, length };
  };
}

/** The first and last line a `view` of `range` may show: at most {@link MAX_VIEW_LINES}. */
function linesToRead(range: readonly number[] | undefined): { start: number; last: number } {
  const { start, end } = requestedRange(range);
  const most = start + MAX_VIEW_LINES - 1;
  return { start, last: end === -1 ? most : Math.min(end, most) };
}

/** The first and last line a `view_range` asks for (1-based; last -1: to the end of the file). */
function requestedRange(range: readonly number[] | undefined): { start: number; end: number } {
  return {
    start: Math.max(Math.floor(range?.[0] ?? 1), 1),
    end: Math.floor(range?.[1] ?? -1),
  };
}

/**
 * {@link showLines} of a file of `total` lines whose line numbered `n` (1-based) is `lineAt(n)`,
 * asked only for the lines it shows. `total` undefined: a file that goes on after the last line
 * {@link linesToRead} gives, whose lines were not all counted.
 */
function showNumberedLines(
  total: number | undefined,
  lineAt: (lineNumber: number) => ShownLine,
  range: readonly number[] | undefined,
  note?: string,
): ToolResult {
  if (total === 0) {
    return textResult("(empty file)");
  }
  const { start: requestedStart, end: requestedEnd } = requestedRange(range);
  if (total !== undefined && requestedStart > total) {
    return errorResult(
      `Invalid view_range: line ${requestedStart} is past the end of the file (${total} lines).`,
    );
  }
  if (requestedEnd !== -1 && requestedEnd < requestedStart) {
    return errorResult(
      `Invalid view_range [${requestedStart}, ${requestedEnd}]: end must be at least start, or -1.`,
    );
  }
  const end = Math.min(requestedEnd === -1 ? Infinity : requestedEnd, total ?? Infinity);
  const output: string[] = [];
  let characters = 0;
  let lineNumber = requestedStart;
  for (; lineNumber <= end && output.length < MAX_VIEW_LINES; lineNumber += 1) {
    const numbered = numberLine(lineNumber, lineAt(lineNumber));
    if (output.length > 0 && characters + numbered.length > MAX_VIEW_CHARACTERS) {
      break;
    }
    output.push(numbered);
    characters += numbered.length + 1;
  }
  const lastShown = lineNumber - 1;
  if (lastShown < end) {
    const nextEnd = Math.min(end, lastShown + MAX_VIEW_LINES);
    const of =
      total === undefined ? "; the file goes on (too large to count its lines)" : ` of ${total}`;
    output.push(
      `[Output cut: showing lines ${requestedStart}-${lastShown}${of}. ` +
        `Use view_range [${lastShown + 1}, ${nextEnd}] to read more.]`,
    );
  }
  if (note !== undefined) {
    output.push(note);
  }
  return textResult(output.join("\n"));
}

/**
 * What a `view` result showed, for a tool line: `lines 1–1109 of 1959` when its output was cut
 * (the `[Output cut: showing lines A-B of T. …]` note {@link showLines} writes), `lines 10–20`
 * for a `view_range` read whole, `empty file`, else `N lines` (a whole file; a folder's entries).
 */
export function viewSummary(output: string, ranged: boolean): string {
  const cut = /\[Output cut: showing lines (\d+)-(\d+) of (\d+)\./.exec(output);
  if (cut !== null) {
    return `lines ${cut[1]}–${cut[2]} of ${cut[3]}`;
  }
  const numbers = [...output.matchAll(/^(\d+)\.(?: |$)/gm)].map((match) => match[1]);
  const [first, last] = [numbers[0], numbers.at(-1)];
  if (ranged && first !== undefined && last !== undefined) {
    return `lines ${first}–${last}`;
  }
  if (output === "(empty file)") {
    return "empty file";
  }
  const count = output === "" ? 0 : output.split("\n").length;
  return `${count} line${count === 1 ? "" : "s"}`;
}

/**
 * A line to show: its text, or the first {@link MAX_LINE_CHARACTERS} characters of a longer line
 * with the whole line's length in characters (its final `\r` not counted).
 */
type ShownLine = string | { text: string; length: number };

/** `N. text` as Copilot CLI shows it; an empty line is just `N.` (no trailing space). */
function numberLine(lineNumber: number, shown: ShownLine): string {
  // A cut line's text ends where it was cut, not at its `\r`.
  let line =
    typeof shown !== "string" ? shown.text : shown.endsWith("\r") ? shown.slice(0, -1) : shown;
  const length = typeof shown === "string" ? line.length : shown.length;
  if (length > MAX_LINE_CHARACTERS) {
    const omitted = length - MAX_LINE_CHARACTERS;
    line = `${line.slice(0, MAX_LINE_CHARACTERS)} [… line cut, ${omitted} more characters]`;
  }
  return line === "" ? `${lineNumber}.` : `${lineNumber}. ${line}`;
}
