import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { makeFolders } from "../events/errors.js";
import type { FileChange } from "../events/events.js";
import { defineTool, type ToolCheck, type ToolContext, type ToolResult } from "./define-tool.js";
import { fileChange, MAX_FILE_CHANGE_CHARACTERS } from "./file-change.js";
import { decodeFileBytes } from "./text-decoding.js";
import { describeCharacter, encodeFileText } from "./text-encoding.js";
import {
  BLANK_PATH,
  changedFileMessage,
  changedSinceKnown,
  errorResult,
  isGivenPath,
  knownFile,
  resolveLinks,
  resolveToolPath,
  runGuarded,
  statIfExists,
  textResult,
} from "./tool-support.js";
import { MAX_VIEW_FILE_BYTES } from "./view.js";

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const createInput = z.lazy(() =>
  z.object({
    path: z.string().refine(isGivenPath, BLANK_PATH.file),
    file_text: z.string(),
    overwrite: z.boolean().optional().describe("Replace an existing file"),
  }),
);

/** Arguments of {@link createTool}: Copilot CLI's `create` plus an explicit `overwrite`. */
export type CreateInput = z.infer<typeof createInput>;

/**
 * `create {path, file_text, overwrite?}`: writes `file_text` as UTF-8 to a new file, making its
 * folders. An existing file is refused unless `overwrite` is `true`, and so is one whose text
 * changed since the model last viewed, edited or created it (tool-support.ts,
 * `changedSinceKnown`); a folder is always refused.
 * Answers `Created file <absolute path> with N characters` (Copilot CLI's wording), adding
 * `(M bytes)` when the UTF-8 size differs from the character count. Writes through the client
 * (editor) when it can, else atomically to disk.
 */
export const createTool = defineTool<CreateInput>({
  name: "create",
  description:
    "Create a file with file_text (folders are made as needed). Fails if it exists unless " +
    "overwrite is true; use edit to change part of a file.",
  input: createInput,
  kind: "edit",
  mutates: true,
  execute: (input, context) =>
    runGuarded("create", context.signal, () => createFile(input, context), {
      cwd: context.cwd,
      outcome: "nothing was created",
    }),
  check: checkCreate,
  scope: (input, cwd) => ({
    title: `Create ${input.path}`,
    paths: [resolveToolPath(cwd, input.path)],
  }),
});

/** A create checked and ready to write: whether the file existed, its text before, the bytes. */
interface PlannedCreate {
  kind: "ready";
  absolutePath: string;
  existed: boolean;
  /** The file's text before (null: no file), undefined when unknown (binary, or too large). */
  oldText: string | null | undefined;
  bytes: Uint8Array;
}

async function createFile(input: CreateInput, context: ToolContext): Promise<ToolResult> {
  const plan = await planCreate(input, context);
  if (plan.kind === "refused") {
    return plan.result;
  }
  const { absolutePath } = plan;
  await makeFolders(dirname(absolutePath));
  const writeTextFile = context.client?.writeTextFile;
  if (writeTextFile !== undefined) {
    await writeTextFile.call(context.client, absolutePath, input.file_text, context.signal);
  } else {
    // Loaded at the first write, not at start-up: a run's first request needs none of it.
    const { writeFileAtomically } = await import("./file-writing.js");
    await writeFileAtomically(absolutePath, plan.bytes, context.signal, input.path);
  }
  const verb = plan.existed ? "Overwrote" : "Created";
  const characters = input.file_text.length;
  const bytes = plan.bytes.length;
  const size = bytes === characters ? "" : ` (${bytes} bytes)`;
  const change = changeOf(plan, input);
  return {
    ...textResult(`${verb} file ${absolutePath} with ${characters} characters${size}`),
    knownFile: knownFile(resolveLinks(absolutePath), input.file_text),
    ...(change === undefined ? {} : { fileChange: change }),
  };
}

/** {@link Tool.check} of `create`: whatever would refuse it, else the change it would make. */
async function checkCreate(input: CreateInput, context: ToolContext): Promise<ToolCheck> {
  const plan = await planCreate(input, context);
  if (plan.kind === "refused") {
    return plan;
  }
  const change = changeOf(plan, input);
  return change === undefined ? { kind: "ready" } : { kind: "ready", change };
}

function changeOf(plan: PlannedCreate, input: CreateInput): FileChange | undefined {
  return plan.oldText === undefined
    ? undefined
    : fileChange(plan.absolutePath, plan.oldText, input.file_text);
}

/** Checks the path and the text: the create ready to write, or why it is refused. */
async function planCreate(
  input: CreateInput,
  context: ToolContext,
): Promise<PlannedCreate | { kind: "refused"; result: ToolResult }> {
  const refuse = (message: string) => ({ kind: "refused" as const, result: errorResult(message) });
  const absolutePath = resolveToolPath(context.cwd, input.path);
  const existing = statIfExists(absolutePath);
  if (existing?.isDirectory()) {
    return refuse(`Path ${absolutePath} is a directory; give the path of a file to create.`);
  }
  if (existing !== undefined && !existing.isFile()) {
    return refuse(`Path ${absolutePath} exists and is not a regular file.`);
  }
  if (existing !== undefined && input.overwrite !== true) {
    return refuse(
      `File ${absolutePath} already exists; it was not changed. To replace all of it, call ` +
        "create again with overwrite: true; to change part of it, use edit.",
    );
  }
  const path = existing === undefined ? absolutePath : resolveLinks(absolutePath);
  const oldText =
    existing === undefined ? null : await oldTextFor(absolutePath, existing.size, path, context);
  if (
    existing !== undefined &&
    (await changedSinceKnown(context.knownFiles, path, () => oldText ?? undefined))
  ) {
    return refuse(changedFileMessage(absolutePath, "it was not overwritten"));
  }
  const encoded = encodeFileText(input.file_text, "utf-8", false);
  if (!encoded.ok) {
    return refuse(
      `file_text cannot be written as UTF-8: it contains ${describeCharacter(encoded.character)} ` +
        `on line ${encoded.line}. Nothing was written.`,
    );
  }
  return {
    kind: "ready",
    absolutePath,
    existed: existing !== undefined,
    oldText,
    bytes: encoded.bytes,
  };
}

/**
 * The text of the existing file (`path`: links resolved) when the known-text check or the change
 * needs it: read when the model knows the file, or when it is small enough for a recorded change
 * (at most 3 bytes of UTF-8 a UTF-16 unit); undefined otherwise, or when it is binary.
 */
async function oldTextFor(
  absolutePath: string,
  size: number,
  path: string,
  context: ToolContext,
): Promise<string | undefined> {
  const known = context.knownFiles.hashOf(path) !== undefined;
  const wanted = known || size <= 3 * MAX_FILE_CHANGE_CHARACTERS;
  return wanted && size <= MAX_VIEW_FILE_BYTES ? currentText(absolutePath, context) : undefined;
}

/** The text of a file as `view` reads it (through the client when it can); undefined if binary. */
async function currentText(
  absolutePath: string,
  context: ToolContext,
): Promise<string | undefined> {
  const decoded = decodeFileBytes(await readFile(absolutePath, { signal: context.signal }));
  if (decoded.kind === "binary") {
    return undefined;
  }
  const readThroughClient = decoded.encoding === "utf-8" ? context.client?.readTextFile : undefined;
  return readThroughClient === undefined
    ? decoded.text
    : readThroughClient.call(context.client, absolutePath, context.signal);
}
