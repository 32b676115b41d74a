import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createTool } from "../../src/tools/create.js";
import { runsInTemporaryDirectory } from "./tool-context.js";

// Trial 43 F4: a `create` under a path whose parent is a file answered Node's raw
// `EEXIST: file already exists, mkdir '…/t/big.txt'`, which reads as another problem; the file
// system's refusals are now said in words, with what did not happen (src/tools/file-system-errors.ts).

let directory = "";
const create = runsInTemporaryDirectory(createTool, (path) => {
  directory = path;
});

it("a create under a file says the file is no folder and that nothing was created", async () => {
  await mkdir(join(directory, "t"));
  await writeFile(join(directory, "t", "big.txt"), "text\n");
  const answers = await Promise.all([
    create({ path: "t/big.txt/sub.txt", file_text: "x" }),
    create({ path: "t/big.txt/deeper/sub.txt", file_text: "x" }),
    create({ path: join(directory, "t/big.txt/abs.txt"), file_text: "x" }),
  ]);
  const refusal = {
    content: "t/big.txt is a file, not a folder; nothing was created.",
    isError: true,
  };
  expect(answers).toEqual([refusal, refusal, refusal]);
  expect(existsSync(join(directory, "t", "big.txt", "sub.txt"))).toBe(false);
});
