import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";

/** Test tools shaped like the cases' (`read_file`, `write_file`, `get_time`); real file I/O. */
export const readFileTool = defineTool({
  name: "read_file",
  description: "Reads a file.",
  input: z.object({ path: z.string() }),
  kind: "read",
  mutates: false,
  execute: async ({ path }, context) => {
    try {
      return { content: await readFile(resolve(context.cwd, path), "utf8"), isError: false };
    } catch {
      return { content: `No such file: ${path}`, isError: true };
    }
  },
});

export const writeFileTool = defineTool({
  name: "write_file",
  description: "Writes a file.",
  input: z.object({
    path: z.string(),
    content: z.string(),
    options: z.object({ mode: z.enum(["overwrite", "append"]) }).optional(),
  }),
  kind: "edit",
  execute: async ({ path, content }, context) => {
    const target = resolve(context.cwd, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return { content: `Wrote ${content.length} bytes to ${path}`, isError: false };
  },
});

export const getTimeTool = defineTool({
  name: "get_time",
  description: "Returns the time.",
  input: z.object({}),
  kind: "other",
  mutates: false,
  execute: async () => ({ content: "12:00", isError: false }),
});
