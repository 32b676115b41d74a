import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { globTool } from "../../src/tools/glob.js";
import { fifoMaker } from "../support/fifos.js";
import { makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

/*
 * A repository's `.gitignore` files were read with `readFile` (src/tools/gitignore.ts): a FIFO
 * there held a thread of Node's pool, and the search, for good (four of them, every file read of
 * the process); a link to /dev/zero was read to 2 GiB. They are read as a repository's files now
 * (tools/project-file.ts): one that is not a regular file has no rules, and the search ends.
 */

let directory = "";
useTemporaryDirectory((path) => {
  directory = path;
});

/** FIFOs made by a test, released after it (a reader blocked on one ends). */
const makeFifo = fifoMaker();

it("a FIFO or a link to /dev/zero as .gitignore: the search ends, with the other folders' rules", async () => {
  await mkdir(join(directory, "src", "nested"), { recursive: true });
  await mkdir(join(directory, "lib"));
  makeFifo(join(directory, ".gitignore"));
  await symlink("/dev/zero", join(directory, "lib", ".gitignore"));
  await writeFile(join(directory, "src", "nested", ".gitignore"), "generated.ts\n");
  for (const path of ["src/kept.ts", "src/nested/generated.ts", "lib/index.ts"]) {
    await writeFile(join(directory, path), "");
  }
  const result = await runTool(globTool, { pattern: "**/*.ts" }, makeContext(directory));
  expect({ ...result, content: result.content.split("\n").sort() }).toEqual({
    content: ["./lib/index.ts", "./src/kept.ts"],
    isError: false,
  });
});
