import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { MAX_VIEW_FILE_BYTES } from "../../src/tools/view.js";
import { runsInTemporaryDirectory } from "./tool-context.js";

// Trial 43 F8: an edit of a file over the size limit said only that it was too large; the model
// is now told how to change it instead, as view's refusal tells it how to read one.

let directory = "";
const edit = runsInTemporaryDirectory(editTool, (path) => {
  directory = path;
});

it("an edit of a file over the limit is refused with a way to change it instead", async () => {
  const path = join(directory, "huge.txt");
  await writeFile(path, "row 1 lorem\n");
  // Sparse: the size counts, not the bytes written.
  await truncate(path, MAX_VIEW_FILE_BYTES + 1);
  expect(await edit({ path: "huge.txt", old_str: "row 1 lorem", new_str: "X" })).toEqual({
    content:
      `File ${path} is too large to edit (${MAX_VIEW_FILE_BYTES + 1} bytes; the limit is ` +
      `${MAX_VIEW_FILE_BYTES}). Change it with a bash command that streams it instead ` +
      "(sed -i, or a short awk or python script), after finding the lines with grep or view " +
      "with a view_range.",
    isError: true,
  });
});
