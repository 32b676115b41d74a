import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { makeFolders } from "../events/errors.js";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool.js";
import { writeFileAtomically } from "./file-writing.js";
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
    runGuarded("create", context.signal, () => createFile(input, context)),
  scope: (input, cwd) => ({
    title: `Create ${input.path}`,
    paths: [resolveToolPath(cwd, input.path)],
  }),
});

async function createFile(input: CreateInput, context: ToolContext): Promise<ToolResult> {
  const absolutePath = resolveToolPath(context.cwd, input.path);
  const existing = await statIfExists(absolutePath);
  if (existing?.isDirectory()) {
    return errorResult(`Path ${absolutePath} is a directory; give the path of a file to create.`);
  }
  if (existing !== undefined && !existing.isFile()) {
    return errorResult(`Path ${absolutePath} exists and is not a regular file.`);
  }
  if (existing !== undefined && input.overwrite !== true) {
    return errorResult(
      `File ${absolutePath} already exists; it was not changed. To replace all of it, call ` +
        "create again with overwrite: true; to change part of it, use edit.",
    );
  }
  if (
    existing !== undefined &&
    (await changedSinceKnown(context.knownFiles, await resolveLinks(absolutePath), () =>
      existing.size > MAX_VIEW_FILE_BYTES ? undefined : currentText(absolutePath, context),
    ))
  ) {
    return errorResult(changedFileMessage(absolutePath, "it was not overwritten"));
  }
  const encoded = encodeFileText(input.file_text, "utf-8", false);
  if (!encoded.ok) {
    return errorResult(
      `file_text cannot be written as UTF-8: it contains ${describeCharacter(encoded.character)} ` +
        `on line ${encoded.line}. Nothing was written.`,
    );
  }
  await makeFolders(dirname(absolutePath));
  const writeTextFile = context.client?.writeTextFile;
  if (writeTextFile !== undefined) {
    await writeTextFile.call(context.client, absolutePath, input.file_text, context.signal);
  } else {
    await writeFileAtomically(absolutePath, encoded.bytes, context.signal);
  }
  const verb = existing === undefined ? "Created" : "Overwrote";
  const characters = input.file_text.length;
  const bytes = encoded.bytes.length;
  const size = bytes === characters ? "" : ` (${bytes} bytes)`;
  return {
    ...textResult(`${verb} file ${absolutePath} with ${characters} characters${size}`),
    knownFile: knownFile(await resolveLinks(absolutePath), input.file_text),
  };
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
