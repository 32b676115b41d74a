import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { knownFile, runsInTemporaryDirectory } from "./tool-context.js";

let directory = "";
const runEdit = runsInTemporaryDirectory(editTool, (path) => {
  directory = path;
});
const edit = (path: string, oldString: string, newString: string) =>
  runEdit({ path, old_str: oldString, new_str: newString });

const TEN_LINES = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join("\n");

describe("edit", () => {
  it("replaces the one match and answers Copilot CLI's words and a diff", async () => {
    const path = join(directory, "edit_me.txt");
    await writeFile(path, "Hello World\nGoodbye World\n");
    const result = await edit(path, "Hello World", "Hi Universe");
    expect(result).toEqual({
      content:
        `File ${path} updated with changes.\n\n` +
        "@@ -1,2 +1,2 @@\n-Hello World\n+Hi Universe\n Goodbye World",
      isError: false,
      knownFile: knownFile(path, "Hi Universe\nGoodbye World\n"),
      fileChange: {
        path,
        oldText: "Hello World\nGoodbye World\n",
        newText: "Hi Universe\nGoodbye World\n",
      },
    });
    expect(await readFile(path, "utf8")).toBe("Hi Universe\nGoodbye World\n");
  });

  it("shows three lines of context and only the lines that changed", async () => {
    await writeFile(join(directory, "ten.txt"), `${TEN_LINES}\n`);
    const result = await edit("ten.txt", "line 5\nline 6\nline 7", "line 5\nLINE SIX\nline 7");
    expect(result.content.split("\n\n")[1]).toBe(
      [
        "@@ -3,7 +3,7 @@",
        " line 3",
        " line 4",
        " line 5",
        "-line 6",
        "+LINE SIX",
        " line 7",
        " line 8",
        " line 9",
      ].join("\n"),
    );
  });

  it("shows inserted and deleted lines", async () => {
    await writeFile(join(directory, "ten.txt"), TEN_LINES);
    const inserted = await edit("ten.txt", "line 2\n", "line 2\nnew a\nnew b\n");
    expect(inserted.content.split("\n\n")[1]).toBe(
      "@@ -1,5 +1,7 @@\n line 1\n line 2\n+new a\n+new b\n line 3\n line 4\n line 5",
    );
    const deleted = await edit("ten.txt", "line 10", "");
    expect(deleted.content.split("\n\n")[1]).toBe(
      "@@ -9,4 +9,3 @@\n line 7\n line 8\n line 9\n-line 10\n\\ No newline at end of file",
    );
    expect(await readFile(join(directory, "ten.txt"), "utf8")).toMatch(
      /new b\nline 3[\s\S]*line 9\n$/,
    );
  });

  it("shows a change to the final line break as diff does, never as an empty line", async () => {
    const diffAfter = async (before: string, oldString: string, newString: string) => {
      await writeFile(join(directory, "end.txt"), before);
      const result = await edit("end.txt", oldString, newString);
      expect(await readFile(join(directory, "end.txt"), "utf8")).toBe(
        before.replace(oldString, newString),
      );
      return result.content.split("\n\n")[1];
    };
    expect(await diffAfter("a\nb\n", "b\n", "b\nc\n")).toBe("@@ -1,2 +1,3 @@\n a\n b\n+c");
    expect(await diffAfter("a\nb", "b", "b\nc\n")).toBe(
      "@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c",
    );
    expect(await diffAfter("a\nb\n", "b\n", "b")).toBe(
      "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file",
    );
    expect(await diffAfter("a\r\nb\r\n", "a", "A")).toBe("@@ -1,2 +1,2 @@\n-a\n+A\n b");
  });

  it("refuses when old_str is not found, leaving the file alone", async () => {
    const path = join(directory, "a.txt");
    await writeFile(path, "alpha\nbeta\n");
    expect(await edit("a.txt", "gamma", "delta")).toEqual({
      content:
        `old_str was not found in ${path}; the file was not changed. View the file and copy ` +
        "the text exactly.",
      isError: true,
    });
    expect(await readFile(path, "utf8")).toBe("alpha\nbeta\n");
  });

  it("says where old_str matches once whitespace is ignored", async () => {
    const path = join(directory, "code.py");
    await writeFile(path, "def f():\n\tif x:\n\t\treturn  1\n");
    const result = await edit(
      "code.py",
      "    if x:\n        return 1",
      "    if y:\n        return 2",
    );
    expect(result).toEqual({
      content:
        `old_str was not found in ${path}; the file was not changed. It does match at line 2 ` +
        "if whitespace and line endings are ignored: copy the indentation, spaces and line " +
        "breaks exactly as the file has them.",
      isError: true,
    });
  });

  it("refuses several matches, saying how many and on which lines", async () => {
    const path = join(directory, "dup.ts");
    await writeFile(path, "let a = 1;\nlet b = 2;\nlet a = 1;\n\nlet a = 1; let a = 1;\n");
    expect(await edit("dup.ts", "let a = 1;", "let a = 3;")).toEqual({
      content:
        `old_str matches 4 places in ${path} (lines 1, 3, 5); it must match exactly one. Add ` +
        "surrounding lines to old_str to make it unique. The file was not changed.",
      isError: true,
    });
    // Overlapping occurrences count: the model could have meant either.
    await writeFile(path, "aaa\n");
    expect((await edit("dup.ts", "aa", "b")).content).toContain("matches 2 places");
    expect(await readFile(path, "utf8")).toBe("aaa\n");
  });

  it("refuses an empty old_str and a no-op edit", async () => {
    await writeFile(join(directory, "a.txt"), "x");
    const empty = await edit("a.txt", "", "y");
    expect(empty.isError).toBe(true);
    expect(empty.content).toContain("old_str is empty");
    const same = await edit("a.txt", "x", "x");
    expect(same).toEqual({
      content: "old_str and new_str are the same; there is nothing to change.",
      isError: true,
    });
  });

  it("says a missing file does not exist, and refuses a folder", async () => {
    expect(await edit("nope.txt", "a", "b")).toEqual({
      content: "Path nope.txt does not exist. Please provide a valid path.",
      isError: true,
    });
    await mkdir(join(directory, "folder"));
    const folder = await edit("folder", "a", "b");
    expect(folder.isError).toBe(true);
    expect(folder.content).toContain("is not a regular file");
  });

  it("keeps the file mode and leaves no temporary file behind", async () => {
    const path = join(directory, "run.sh");
    await writeFile(path, "#!/bin/sh\necho old\n", { mode: 0o750 });
    expect((await edit("run.sh", "old", "new")).isError).toBe(false);
    expect((await stat(path)).mode & 0o777).toBe(0o750);
    expect(await readdir(directory)).toEqual(["run.sh"]);
  });

  it("edits the target of a symbolic link and keeps the link", async () => {
    await mkdir(join(directory, "real"));
    await writeFile(join(directory, "real", "config.json"), '{"debug": false}\n');
    await symlink(join(directory, "real", "config.json"), join(directory, "config.json"));
    const result = await edit("config.json", "false", "true");
    expect(result.isError).toBe(false);
    expect(await readFile(join(directory, "real", "config.json"), "utf8")).toBe(
      '{"debug": true}\n',
    );
    const entries = await readdir(directory, { withFileTypes: true });
    expect(entries.find((entry) => entry.name === "config.json")?.isSymbolicLink()).toBe(true);
    expect(await readdir(join(directory, "real"))).toEqual(["config.json"]);
  });

  it("refuses to add U+FFFD to a file", async () => {
    const path = join(directory, "a.txt");
    await writeFile(path, "name = caf?\n");
    const result = await edit("a.txt", "caf?", "caf\uFFFD");
    expect(result.isError).toBe(true);
    expect(result.content).toContain("U+FFFD");
    expect(await readFile(path, "utf8")).toBe("name = caf?\n");
  });

  it("describes its scope for the permission gate", () => {
    expect(editTool.scope?.({ path: "src/a.ts", old_str: "a", new_str: "b" }, directory)).toEqual({
      title: "Edit src/a.ts",
      paths: [join(directory, "src/a.ts")],
    });
    expect(editTool.kind).toBe("edit");
    expect(editTool.mutates).toBe(true);
  });
});
