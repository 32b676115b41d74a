import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type ToolCheck, type ToolContext, type ToolResult } from "./define-tool.js";
import { fileChange } from "./file-change.js";
import { type DecodedFile, decodeFileBytes } from "./text-decoding.js";
import { describeCharacter, encodeFileText } from "./text-encoding.js";
import { type Replacement, replaceOnce } from "./text-replacement.js";
import {
  BLANK_PATH,
  changedFileMessage,
  changedSinceKnown,
  errorResult,
  isGivenPath,
  knownFile,
  missingPathMessage,
  resolveLinks,
  resolveToolPath,
  runGuarded,
  statIfExists,
  textResult,
} from "./tool-support.js";
import { MAX_VIEW_FILE_BYTES } from "./view.js";

/** Line numbers listed in an "old_str matches several places" error. */
const MAX_LISTED_LINES = 20;

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const editInput = z.lazy(() =>
  z.object({
    path: z.string().refine(isGivenPath, BLANK_PATH.file),
    old_str: z.string(),
    new_str: z.string(),
  }),
);

/** Arguments of {@link editTool}, as Copilot CLI's `edit` takes them. */
export type EditInput = z.infer<typeof editInput>;

type TextFile = DecodedFile & { kind: "text" };

/**
 * `edit {path, old_str, new_str}`: replaces the one occurrence of `old_str`. Answers
 * `File <absolute path> updated with changes.` (Copilot CLI's wording), a blank line and a
 * unified-style hunk of the change. Errors (file unchanged): missing file, binary file, a file
 * whose text changed since the model last viewed, edited or created it (tool-support.ts,
 * `changedSinceKnown`), `old_str` empty, equal to `new_str`, not found (with the lines where it
 * matches when whitespace is ignored) or found several times (with how many and on which lines),
 * and text the file's encoding cannot hold. Keeps the file's line endings, byte order mark and encoding (UTF-8,
 * UTF-16, windows-1252) and never adds U+FFFD. Reads and writes UTF-8 files without a byte order
 * mark through the client (editor) when it can; otherwise writes atomically to disk.
 */
export const editTool = defineTool<EditInput>({
  name: "edit",
  description:
    "Replace old_str with new_str in a file. old_str must match exactly one place, whitespace " +
    "included; add surrounding lines to make it unique. Returns a diff.",
  input: editInput,
  kind: "edit",
  mutates: true,
  execute: (input, context) =>
    runGuarded("edit", context.signal, () => editFile(input, context), {
      cwd: context.cwd,
      outcome: "the file was not changed",
    }),
  check: checkEdit,
  scope: (input, cwd) => ({
    title: `Edit ${input.path}`,
    paths: [resolveToolPath(cwd, input.path)],
  }),
});

/** An edit checked and ready to write: the file as read, its new text and bytes, the change. */
interface PlannedEdit {
  kind: "ready";
  absolutePath: string;
  /** The path with its links resolved, the key of {@link ToolContext.knownFiles}. */
  path: string;
  file: Extract<ReadOutcome, { kind: "text" }>;
  replacement: Extract<Replacement, { kind: "replaced" }>;
  bytes: Uint8Array;
}

async function editFile(input: EditInput, context: ToolContext): Promise<ToolResult> {
  const plan = await planEdit(input, context);
  if (plan.kind === "refused") {
    return plan.result;
  }
  const { absolutePath, file, replacement } = plan;
  const writeThroughClient = file.clientCompatible ? context.client?.writeTextFile : undefined;
  if (writeThroughClient !== undefined) {
    await writeThroughClient.call(context.client, absolutePath, replacement.text, context.signal);
  } else {
    // Loaded at the first write, not at start-up: a run's first request needs none of it.
    const { writeFileAtomically } = await import("./file-writing.js");
    await writeFileAtomically(absolutePath, plan.bytes, context.signal, input.path);
  }
  const change = fileChange(absolutePath, file.text, replacement.text);
  return {
    ...textResult(`File ${absolutePath} updated with changes.\n\n${replacement.diff}`),
    knownFile: knownFile(plan.path, replacement.text),
    ...(change === undefined ? {} : { fileChange: change }),
  };
}

/** {@link Tool.check} of `edit`: whatever would refuse the edit, else the change it would make. */
async function checkEdit(input: EditInput, context: ToolContext): Promise<ToolCheck> {
  let plan: Awaited<ReturnType<typeof planEdit>>;
  try {
    plan = await planEdit(input, context);
  } catch (error) {
    // A file that cannot be read (an editor refusing its buffer) fails here, before the question,
    // in the words the run would use, as an edit that cannot apply does (trial 43 F3).
    const failed = () => Promise.reject(error);
    const outcome = { cwd: context.cwd, outcome: "the file was not changed" };
    return { kind: "refused", result: await runGuarded("edit", context.signal, failed, outcome) };
  }
  if (plan.kind === "refused") {
    return plan;
  }
  const change = fileChange(plan.absolutePath, plan.file.text, plan.replacement.text);
  return change === undefined ? { kind: "ready" } : { kind: "ready", change };
}

/** Reads the file and makes the edit in memory: the edit ready to write, or why it is refused. */
async function planEdit(
  input: EditInput,
  context: ToolContext,
): Promise<PlannedEdit | { kind: "refused"; result: ToolResult }> {
  const refuse = (message: string) => ({ kind: "refused" as const, result: errorResult(message) });
  const absolutePath = resolveToolPath(context.cwd, input.path);
  if (input.old_str === "") {
    return refuse(
      "old_str is empty; give the exact text to replace. To write a whole file, use create " +
        "with overwrite: true.",
    );
  }
  if (input.old_str === input.new_str) {
    return refuse("old_str and new_str are the same; there is nothing to change.");
  }
  const file = await readTextFile(absolutePath, input.path, context);
  if (file.kind === "refused") {
    return refuse(file.message);
  }
  const path = resolveLinks(absolutePath);
  if (await changedSinceKnown(context.knownFiles, path, () => file.text)) {
    const { unsavedChangesNote } = await import("./editor-text.js");
    const note = unsavedChangesNote(file.text, file.decoded.text, context.knownFiles.hashOf(path));
    return refuse(changedFileMessage(absolutePath, "the edit was not made") + note);
  }
  const replacement = replaceOnce(file.text, input.old_str, input.new_str);
  if (replacement.kind !== "replaced") {
    return refuse(describeMiss(replacement, absolutePath));
  }
  // U+FFFD is one UTF-16 unit: the new text has more exactly when new_str has more than old_str.
  if (countReplacementCharacters(input.new_str) > countReplacementCharacters(input.old_str)) {
    return refuse(
      "new_str contains U+FFFD (the replacement character for undecodable bytes), which " +
        `would corrupt ${absolutePath}; the file was not changed. Copy the text from view again.`,
    );
  }
  const encoded = encodeFileText(
    replacement.text,
    file.decoded.encoding,
    file.decoded.byteOrderMark,
  );
  if (!encoded.ok) {
    return refuse(
      `File ${absolutePath} is ${file.decoded.encoding}, which cannot hold ` +
        `${describeCharacter(encoded.character)} (line ${encoded.line} after the edit); the file ` +
        "was not changed. Use characters that encoding has.",
    );
  }
  return { kind: "ready", absolutePath, path, file, replacement, bytes: encoded.bytes };
}

type ReadOutcome =
  | {
      kind: "text";
      text: string;
      decoded: TextFile;
      /** UTF-8 without a byte order mark: the client may read and write it. */
      clientCompatible: boolean;
    }
  | { kind: "refused"; message: string };

/**
 * Reads the file as text. The bytes on disk decide the encoding; a UTF-8 file without a byte
 * order mark is then read through the client when it can (unsaved editor changes count), since
 * the client speaks UTF-8 strings and cannot be trusted to keep other encodings or a mark.
 */
async function readTextFile(
  absolutePath: string,
  givenPath: string,
  context: ToolContext,
): Promise<ReadOutcome> {
  const stats = statIfExists(absolutePath);
  if (stats === undefined) {
    return refused(missingPathMessage(givenPath));
  }
  if (!stats.isFile()) {
    return refused(`Path ${absolutePath} is not a regular file; edit changes text files.`);
  }
  if (stats.size > MAX_VIEW_FILE_BYTES) {
    return refused(
      `File ${absolutePath} is too large to edit (${stats.size} bytes; the limit is ` +
        `${MAX_VIEW_FILE_BYTES}). Change it with a bash command that streams it instead ` +
        "(sed -i, or a short awk or python script), after finding the lines with grep or " +
        "view with a view_range.",
    );
  }
  const bytes = await readFile(absolutePath, { signal: context.signal });
  const decoded = decodeFileBytes(bytes);
  if (decoded.kind === "binary") {
    const type = decoded.mediaType === undefined ? "" : ` (${decoded.mediaType})`;
    return refused(
      `File ${absolutePath} is binary${type}; edit only changes text files. It was not changed.`,
    );
  }
  if (decoded.encoding !== "utf-8" && !roundTrips(decoded, bytes)) {
    // E.g. UTF-16 with an odd byte count or a broken surrogate: writing it back would change
    // bytes the model never touched.
    return refused(
      `File ${absolutePath} is not valid ${decoded.encoding}; edit cannot change it without ` +
        "altering other bytes. It was not changed.",
    );
  }
  const clientCompatible = decoded.encoding === "utf-8" && !decoded.byteOrderMark;
  const readThroughClient = clientCompatible ? context.client?.readTextFile : undefined;
  const text =
    readThroughClient === undefined
      ? decoded.text
      : await readThroughClient.call(context.client, absolutePath, context.signal);
  return { kind: "text", text, decoded, clientCompatible };
}

function refused(message: string): ReadOutcome {
  return { kind: "refused", message };
}

function describeMiss(miss: Exclude<Replacement, { kind: "replaced" }>, path: string): string {
  if (miss.kind === "ambiguous") {
    // Counting stops at 1000 (text-replacement.ts): a one-character old_str can match everywhere.
    const count = miss.atLeast ? `at least ${miss.count}` : `${miss.count}`;
    const lines = describeLines(miss.lines, false);
    const where = miss.atLeast ? `the first ${miss.count} on ${lines}` : lines;
    return (
      `old_str matches ${count} places in ${path} (${where}); it must ` +
      "match exactly one. Add surrounding lines to old_str to make it unique. The file was not " +
      "changed."
    );
  }
  const notFound = `old_str was not found in ${path}; the file was not changed.`;
  if (miss.looseMatchLines.length === 0) {
    return `${notFound} View the file and copy the text exactly.`;
  }
  return (
    `${notFound} It does match at ${describeLines(miss.looseMatchLines, miss.looseMatchesCut)} if whitespace and line ` +
    "endings are ignored: copy the indentation, spaces and line breaks exactly as the file has them."
  );
}

/**
 * `line 4` or `lines 2, 5, 9` (cut after {@link MAX_LISTED_LINES} with `and N more`); `cut`: the
 * search stopped counting (text-replacement.ts), so `and at least N more`.
 */
function describeLines(lines: readonly number[], cut: boolean): string {
  if (lines.length === 1) {
    return `line ${lines[0]}`;
  }
  const shown = lines.slice(0, MAX_LISTED_LINES).join(", ");
  const more = lines.length - MAX_LISTED_LINES;
  return `lines ${shown}${more > 0 ? ` and ${cut ? "at least " : ""}${more} more` : ""}`;
}

/**
 * Whether writing the decoded text back gives exactly the bytes it was read from. Always so for
 * UTF-8, which text-decoding.ts `decodeFileBytes` decodes strictly (every valid UTF-8 sequence is
 * one scalar value and back): not asked then, since it costs a second copy of the file.
 */
function roundTrips(decoded: TextFile, bytes: Uint8Array): boolean {
  const encoded = encodeFileText(decoded.text, decoded.encoding, decoded.byteOrderMark);
  return encoded.ok && Buffer.from(encoded.bytes).equals(bytes);
}

function countReplacementCharacters(text: string): number {
  let count = 0;
  for (
    let index = text.indexOf("\uFFFD");
    index !== -1;
    index = text.indexOf("\uFFFD", index + 1)
  ) {
    count += 1;
  }
  return count;
}
