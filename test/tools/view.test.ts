import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readImage } from "../../src/tools/image-file.js";
import { viewTool } from "../../src/tools/view.js";
import { knownFile, runsInTemporaryDirectory } from "./tool-context.js";

let directory = "";
const view = runsInTemporaryDirectory(viewTool, (path) => {
  directory = path;
});

describe("view", () => {
  it("numbers lines as Copilot CLI does; a final newline ends the last line, not a new one", async () => {
    await writeFile(join(directory, "edit_me.txt"), "Hi Universe\nGoodbye World\n");
    const result = await view({ path: join(directory, "edit_me.txt") });
    expect(result).toEqual({
      content: "1. Hi Universe\n2. Goodbye World",
      isError: false,
      knownFile: knownFile(join(directory, "edit_me.txt"), "Hi Universe\nGoodbye World\n"),
    });
    // A blank last line is a line; CRLF line ends count the same.
    await writeFile(join(directory, "blank.txt"), "a\r\n\r\n");
    expect(await view({ path: "blank.txt" })).toEqual({
      content: "1. a\n2.",
      isError: false,
      knownFile: knownFile(join(directory, "blank.txt"), "a\r\n\r\n"),
    });
    await writeFile(join(directory, "newline.txt"), "\n");
    expect(await view({ path: "newline.txt" })).toEqual({
      content: "1.",
      isError: false,
      knownFile: knownFile(join(directory, "newline.txt"), "\n"),
    });
  });

  it("counts a file ending in a newline by its real lines in ranges and errors", async () => {
    await writeFile(join(directory, "ab.txt"), "a\nb\n");
    // Part of a file or all of it, the model now knows its whole text.
    const whole = knownFile(join(directory, "ab.txt"), "a\nb\n");
    expect(await view({ path: "ab.txt", view_range: [2, -1] })).toEqual({
      content: "2. b",
      isError: false,
      knownFile: whole,
    });
    expect(await view({ path: "ab.txt", view_range: [1, 5] })).toEqual({
      content: "1. a\n2. b",
      isError: false,
      knownFile: whole,
    });
    expect(await view({ path: "ab.txt", view_range: [3, 3] })).toEqual({
      content: "Invalid view_range: line 3 is past the end of the file (2 lines).",
      isError: true,
    });
  });

  it("does not cut a file of exactly 2000 lines ending in a newline", async () => {
    const lines = Array.from({ length: 2000 }, (_, index) => `row ${index + 1}`);
    await writeFile(join(directory, "full.txt"), `${lines.join("\n")}\n`);
    const result = await view({ path: "full.txt" });
    expect(result).toEqual({
      content: lines.map((line, index) => `${index + 1}. ${line}`).join("\n"),
      isError: false,
      knownFile: knownFile(join(directory, "full.txt"), `${lines.join("\n")}\n`),
    });
  });

  it("reads a relative path against the cwd", async () => {
    await writeFile(join(directory, "new_file.txt"), "Created by test");
    expect(await view({ path: "new_file.txt" })).toEqual({
      content: "1. Created by test",
      isError: false,
      knownFile: knownFile(join(directory, "new_file.txt"), "Created by test"),
    });
  });

  it("reads a view_range, with -1 meaning the end of the file", async () => {
    await writeFile(join(directory, "lines.txt"), "line1\nline2\nline3\nline4\nline5");
    const middle = await view({ path: join(directory, "lines.txt"), view_range: [2, 4] });
    expect(middle.content).toBe("2. line2\n3. line3\n4. line4");
    const rest = await view({ path: "lines.txt", view_range: [4, -1] });
    expect(rest.content).toBe("4. line4\n5. line5");
    const past = await view({ path: "lines.txt", view_range: [9, 10] });
    expect(past.isError).toBe(true);
    expect(past.content).toContain("5 lines");
  });

  it("says a missing path does not exist, in Copilot CLI's words", async () => {
    const path = join(directory, "does_not_exist.txt");
    expect(await view({ path })).toEqual({
      content: `Path ${path} does not exist. Please provide a valid path.`,
      isError: true,
    });
  });

  it("lists a directory two levels deep without hidden or gitignored entries", async () => {
    await mkdir(join(directory, "src", "deep", "deeper"), { recursive: true });
    await mkdir(join(directory, "dist"));
    await mkdir(join(directory, ".hidden"));
    await writeFile(join(directory, ".gitignore"), "dist/\n*.log\n");
    await writeFile(join(directory, "README.md"), "hi");
    await writeFile(join(directory, "debug.log"), "noise");
    await writeFile(join(directory, "dist", "bundle.js"), "");
    await writeFile(join(directory, "src", "index.ts"), "");
    await writeFile(join(directory, "src", "deep", "too-deep.ts"), "");
    const result = await view({ path: directory });
    expect(result).toEqual({ content: "README.md\nsrc/\nsrc/deep/\nsrc/index.ts", isError: false });
    // Asked for by name, an ignored folder is listed.
    expect((await view({ path: "dist" })).content).toBe("bundle.js");
  });

  it("lists a one-file directory as just the file name", async () => {
    await mkdir(join(directory, "attached-directory"));
    await writeFile(join(directory, "attached-directory", "readme.txt"), "x");
    const result = await view({ path: join(directory, "attached-directory") });
    expect(result.content).toBe("readme.txt");
  });

  it("strips a UTF-8 byte order mark", async () => {
    await writeFile(
      join(directory, "bom.cs"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("// héllo\nint a = 1;\n")]),
    );
    const result = await view({ path: "bom.cs" });
    expect(result.content).toBe("1. // héllo\n2. int a = 1;");
  });

  it("decodes UTF-16LE with a byte order mark", async () => {
    const text = Buffer.from("naïve\r\nsecond\r\n", "utf16le");
    await writeFile(join(directory, "wide.txt"), Buffer.concat([Buffer.from([0xff, 0xfe]), text]));
    const result = await view({ path: "wide.txt" });
    expect(result.content).toBe(
      "1. naïve\n2. second\n[The file is UTF-16LE with a byte order mark.]",
    );
    expect(result.content).not.toContain("\u0000");
  });

  it("decodes a Latin-1 file without inventing U+FFFD", async () => {
    await writeFile(
      join(directory, "latin1.php"),
      Buffer.from("<?php\n$a = 1;\n// caf\xe9\n", "latin1"),
    );
    const result = await view({ path: "latin1.php" });
    expect(result.isError).toBe(false);
    expect(result.content).toContain("3. // café");
    expect(result.content).not.toContain("\uFFFD");
    expect(result.content).toContain("not valid UTF-8");
  });

  it("gives a short notice for binary files and images instead of bytes", async () => {
    const random = Buffer.alloc(4096);
    for (let index = 0; index < random.length; index += 1) {
      random[index] = (index * 7919) % 256;
    }
    await writeFile(join(directory, "data.bin"), random);
    const binary = await view({ path: "data.bin" });
    expect(binary).toEqual({
      content: "Binary file (4096 bytes): not shown as text.",
      isError: false,
    });

    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    );
    await writeFile(join(directory, "img.png"), png);
    const image = await view({ path: "img.png" });
    expect(image).toEqual({
      content: `Image file img.png (image/png, ${png.length} bytes), attached.`,
      isError: false,
      images: [{ mimeType: "image/png", data: png.toString("base64") }],
    });
  });

  it("cuts a huge file with a note on how to read on", async () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `row ${index + 1}`);
    await writeFile(join(directory, "huge.txt"), `${lines.join("\n")}\n`);
    const numbered = lines.map((line, index) => `${index + 1}. ${line}`);
    const result = await view({ path: "huge.txt" });
    expect(result.content.split("\n")).toEqual([
      ...numbered.slice(0, 2000),
      "[Output cut: showing lines 1-2000 of 5000. Use view_range [2001, 4000] to read more.]",
    ]);
    const last = await view({ path: "huge.txt", view_range: [4001, -1] });
    expect(last.content.split("\n")).toEqual(numbered.slice(4000));
  });

  it("cuts by size when lines are long, and shortens a single enormous line", async () => {
    const longLine = "x".repeat(1_900);
    await writeFile(join(directory, "wide.txt"), Array(200).fill(longLine).join("\n"));
    const result = await view({ path: "wide.txt" });
    expect(result.content.length).toBeLessThan(101_000);
    expect(result.content).toMatch(/\[Output cut: showing lines 1-\d+ of 200\./);

    await writeFile(join(directory, "minified.js"), "y".repeat(50_000));
    const minified = await view({ path: "minified.js" });
    expect(minified.content).toContain("[… line cut, 48000 more characters]");
  });

  it("reads PNG, JPEG, GIF and WebP files as base64 image data for the model, nothing else", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    );
    // The magic bytes decide, not the name.
    await writeFile(join(directory, "picture.dat"), png);
    expect(await readImage(join(directory, "picture.dat"))).toEqual({
      mimeType: "image/png",
      data: png.toString("base64"),
    });
    const webp = Buffer.concat([
      Buffer.from("RIFF\x24\x00\x00\x00WEBPVP8 ", "latin1"),
      Buffer.alloc(8),
    ]);
    await writeFile(join(directory, "a.webp"), webp);
    expect((await readImage(join(directory, "a.webp")))?.mimeType).toBe("image/webp");
    await writeFile(join(directory, "doc.pdf"), "%PDF-1.7\n");
    await writeFile(join(directory, "notes.png"), "just text");
    expect(await readImage(join(directory, "doc.pdf"))).toBeUndefined();
    expect(await readImage(join(directory, "notes.png"))).toBeUndefined();
    expect(await readImage(join(directory, "missing.png"))).toBeUndefined();
    expect(await readImage(directory)).toBeUndefined();
  });
});
