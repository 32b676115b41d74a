import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTool } from "../../src/tools/create.js";
import { MAX_FILE_CHANGE_CHARACTERS } from "../../src/tools/file-change.js";
import { knownFile, runsInTemporaryDirectory } from "./tool-context.js";

let directory = "";
const create = runsInTemporaryDirectory(createTool, (path) => {
  directory = path;
});

describe("create", () => {
  it("creates a file and answers in Copilot CLI's words", async () => {
    const path = join(directory, "new_file.txt");
    expect(await create({ path, file_text: "Created by test" })).toEqual({
      content: `Created file ${path} with 15 characters`,
      isError: false,
      knownFile: knownFile(path, "Created by test"),
      fileChange: { path, oldText: null, newText: "Created by test" },
    });
    expect(await readFile(path, "utf8")).toBe("Created by test");
  });

  it("records no whole-file change over MAX_FILE_CHANGE_CHARACTERS (faces show the output)", async () => {
    const path = join(directory, "large.txt");
    await writeFile(path, "small\n");
    const large = "x".repeat(MAX_FILE_CHANGE_CHARACTERS + 1);
    const result = await create({ path, file_text: large, overwrite: true });
    expect(result).toEqual({
      content: `Overwrote file ${path} with ${large.length} characters`,
      isError: false,
      knownFile: knownFile(path, large),
    });
  });

  it("resolves a relative path against the cwd and makes missing folders", async () => {
    const result = await create({ path: "notes/deep/x.md", file_text: "# x\n" });
    expect(result).toEqual({
      content: `Created file ${join(directory, "notes/deep/x.md")} with 4 characters`,
      isError: false,
      knownFile: knownFile(join(directory, "notes/deep/x.md"), "# x\n"),
      fileChange: { path: join(directory, "notes/deep/x.md"), oldText: null, newText: "# x\n" },
    });
    expect(await readFile(join(directory, "notes/deep/x.md"), "utf8")).toBe("# x\n");
  });

  it("reports bytes written when they differ from the character count", async () => {
    const result = await create({ path: "accents.txt", file_text: "café ☕" });
    expect(result.content).toBe(
      `Created file ${join(directory, "accents.txt")} with 6 characters (9 bytes)`,
    );
    expect((await stat(join(directory, "accents.txt"))).size).toBe(9);
  });

  it("creates an empty file", async () => {
    const result = await create({ path: "empty.txt", file_text: "" });
    expect(result.isError).toBe(false);
    expect(await readFile(join(directory, "empty.txt"), "utf8")).toBe("");
  });

  it("refuses to overwrite an existing file and says how to", async () => {
    const path = join(directory, "keep.txt");
    await writeFile(path, "precious");
    const result = await create({ path, file_text: "replacement" });
    expect(result).toEqual({
      content:
        `File ${path} already exists; it was not changed. To replace all of it, call create ` +
        "again with overwrite: true; to change part of it, use edit.",
      isError: true,
    });
    expect(await readFile(path, "utf8")).toBe("precious");
    const explicitNo = await create({ path, file_text: "replacement", overwrite: false });
    expect(explicitNo.isError).toBe(true);
  });

  it("overwrites with overwrite: true, keeping the file mode and leaving no temporary file", async () => {
    const path = join(directory, "script.sh");
    await writeFile(path, "#!/bin/sh\necho old\n", { mode: 0o755 });
    const result = await create({ path, file_text: "#!/bin/sh\necho new\n", overwrite: true });
    expect(result).toEqual({
      content: `Overwrote file ${path} with 19 characters`,
      isError: false,
      knownFile: knownFile(path, "#!/bin/sh\necho new\n"),
      // The whole text before and after (ACP's diff content), the replaced file's too.
      fileChange: { path, oldText: "#!/bin/sh\necho old\n", newText: "#!/bin/sh\necho new\n" },
    });
    expect(await readFile(path, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect((await stat(path)).mode & 0o777).toBe(0o755);
    expect(await readdir(directory)).toEqual(["script.sh"]);
  });

  it("overwrites through a symbolic link, which stays a link", async () => {
    await writeFile(join(directory, "target.txt"), "old");
    await symlink("target.txt", join(directory, "link.txt"));
    const result = await create({ path: "link.txt", file_text: "new", overwrite: true });
    expect(result.isError).toBe(false);
    expect(await readFile(join(directory, "target.txt"), "utf8")).toBe("new");
    const entries = await readdir(directory, { withFileTypes: true });
    expect(entries.find((entry) => entry.name === "link.txt")?.isSymbolicLink()).toBe(true);
  });

  it("refuses a folder, even with overwrite", async () => {
    await mkdir(join(directory, "folder"));
    const result = await create({ path: "folder", file_text: "x", overwrite: true });
    expect(result).toEqual({
      content: `Path ${join(directory, "folder")} is a directory; give the path of a file to create.`,
      isError: true,
    });
  });

  it("refuses text with a lone surrogate instead of writing U+FFFD", async () => {
    const result = await create({ path: "broken.txt", file_text: "a\nb\uD800c" });
    expect(result).toEqual({
      content:
        "file_text cannot be written as UTF-8: it contains U+D800 (a lone surrogate) on line 2. " +
        "Nothing was written.",
      isError: true,
    });
    expect(await readdir(directory)).toEqual([]);
  });

  it("reports a path under a file as an error result", async () => {
    await writeFile(join(directory, "plain"), "x");
    // In words (trial 43 F4), not Node's `EEXIST: file already exists, mkdir`.
    expect(await create({ path: "plain/child.txt", file_text: "x" })).toEqual({
      content: "plain is a file, not a folder; nothing was created.",
      isError: true,
    });
  });

  it("describes its scope for the permission gate", () => {
    expect(createTool.scope?.({ path: "notes/x.md", file_text: "" }, directory)).toEqual({
      title: "Create notes/x.md",
      paths: [join(directory, "notes/x.md")],
    });
    expect(createTool.kind).toBe("edit");
    expect(createTool.mutates).toBe(true);
  });
});
