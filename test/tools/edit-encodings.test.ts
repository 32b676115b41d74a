import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { viewTool } from "../../src/tools/view.js";
import { makeContext, runsInTemporaryDirectory, runTool } from "./tool-context.js";

/** Case 30: edits keep every byte outside the replaced text, in every encoding view reads. */
let directory = "";
const runEdit = runsInTemporaryDirectory(editTool, (path) => {
  directory = path;
});
const edit = (path: string, oldString: string, newString: string) =>
  runEdit({ path, old_str: oldString, new_str: newString });

async function fileWith(name: string, bytes: Buffer): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, bytes);
  return path;
}

const REPLACEMENT_CHARACTER_UTF8 = Buffer.from([0xef, 0xbf, 0xbd]);

describe("edit keeps line endings and encodings", () => {
  it("matches old_str written with \\n against CRLF lines and writes CRLF back", async () => {
    const path = await fileWith("crlf.txt", Buffer.from("a\r\nb\r\nc\r\n"));
    const result = await edit("crlf.txt", "a\nb", "A\nB\nB2");
    expect(result.isError).toBe(false);
    expect(result.content.split("\n\n")[1]).toBe("@@ -1,3 +1,4 @@\n-a\n-b\n+A\n+B\n+B2\n c");
    expect(await readFile(path, "latin1")).toBe("A\r\nB\r\nB2\r\nc\r\n");
  });

  it("case 30 step 6: a one-letter edit of a CRLF file keeps CRLF", async () => {
    const path = await fileWith("crlf.txt", Buffer.from("a\r\nb\r\n"));
    expect((await edit("crlf.txt", "a", "A")).isError).toBe(false);
    expect(await readFile(path, "latin1")).toBe("A\r\nb\r\n");
  });

  it("keeps LF lines in an LF file when old_str and new_str come with CRLF", async () => {
    const path = await fileWith("lf.txt", Buffer.from("one\ntwo\nthree\n"));
    expect((await edit("lf.txt", "one\r\ntwo", "1\r\n2")).isError).toBe(false);
    expect(await readFile(path, "latin1")).toBe("1\n2\nthree\n");
  });

  it("case 30 step 5: keeps a UTF-8 byte order mark and the é after it", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const path = await fileWith(
      "bom.cs",
      Buffer.concat([bom, Buffer.from("// héllo\nint a = 1;\n")]),
    );
    expect((await edit("bom.cs", "int a = 1;", "int a = 2;")).isError).toBe(false);
    expect(await readFile(path)).toEqual(
      Buffer.concat([bom, Buffer.from("// héllo\nint a = 2;\n")]),
    );
  });

  it("keeps UTF-16LE with its byte order mark and CRLF lines", async () => {
    const encode = (text: string) =>
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const path = await fileWith("wide.txt", encode("naïve\r\nsecond\r\n"));
    const result = await edit("wide.txt", "second", "zweite – ✓");
    expect(result.isError).toBe(false);
    expect(await readFile(path)).toEqual(encode("naïve\r\nzweite – ✓\r\n"));
  });

  it("keeps UTF-16BE with its byte order mark", async () => {
    const encode = (text: string) =>
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]);
    const path = await fileWith("wide-be.txt", encode("key=value\n"));
    expect((await edit("wide-be.txt", "value", "wert")).isError).toBe(false);
    expect(await readFile(path)).toEqual(encode("key=wert\n"));
  });

  it("case 30 step 3: edits a Latin-1 file and keeps its other bytes", async () => {
    const path = await fileWith(
      "latin1.php",
      Buffer.from("<?php\n$a = 1;\n// caf\xe9\n", "latin1"),
    );
    const result = await edit("latin1.php", "$a = 1;", "$a = 2; // déjà €");
    expect(result.isError).toBe(false);
    const bytes = await readFile(path);
    // é is E9, à is E0 and € is 80 in windows-1252; nothing became EF BF BD.
    expect(bytes).toEqual(
      Buffer.concat([
        Buffer.from("<?php\n$a = 2; // d\xe9j\xe0 ", "latin1"),
        Buffer.from([0x80]),
        Buffer.from("\n// caf\xe9\n", "latin1"),
      ]),
    );
    expect(bytes.includes(REPLACEMENT_CHARACTER_UTF8)).toBe(false);
  });

  it("case 30 step 4: a GBK file read as windows-1252 survives an ASCII edit byte for byte", async () => {
    const original = Buffer.concat([
      Buffer.from("x = 1\n"),
      Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0x0a]),
    ]);
    const path = await fileWith("gbk.txt", original);
    expect((await edit("gbk.txt", "x = 1", "x = 2")).isError).toBe(false);
    expect(await readFile(path)).toEqual(
      Buffer.concat([Buffer.from("x = 2\n"), original.subarray(6)]),
    );
  });

  it("refuses text a windows-1252 file cannot hold, leaving it byte-identical", async () => {
    const original = Buffer.from("title = caf\xe9\nbody = x\n", "latin1");
    const path = await fileWith("legacy.ini", original);
    const result = await edit("legacy.ini", "body = x", "body = 中文");
    expect(result).toEqual({
      content:
        `File ${path} is windows-1252, which cannot hold U+4E2D "中" (line 2 after the edit); ` +
        "the file was not changed. Use characters that encoding has.",
      isError: true,
    });
    expect(await readFile(path)).toEqual(original);
  });

  it("writes smart quotes and € into a windows-1252 file as its own bytes", async () => {
    const path = await fileWith("quotes.txt", Buffer.from([0x93, 0x61, 0x94, 0x0a]));
    expect((await edit("quotes.txt", "“a”", "‘b’ €")).isError).toBe(false);
    expect(await readFile(path)).toEqual(Buffer.from([0x91, 0x62, 0x92, 0x20, 0x80, 0x0a]));
  });

  it("refuses a UTF-16 file that would not be written back byte for byte", async () => {
    const odd = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from("ab", "utf16le"),
      Buffer.from([0x63]),
    ]);
    const path = await fileWith("odd.txt", odd);
    const result = await edit("odd.txt", "a", "x");
    expect(result).toEqual({
      content: `File ${path} is not valid utf-16le; edit cannot change it without altering other bytes. It was not changed.`,
      isError: true,
    });
    expect(await readFile(path)).toEqual(odd);
  });

  it("refuses to edit a binary file or an image", async () => {
    const binary = Buffer.alloc(256);
    for (let index = 0; index < binary.length; index += 1) {
      binary[index] = index;
    }
    const path = await fileWith("data.bin", binary);
    expect(await edit("data.bin", "abc", "xyz")).toEqual({
      content: `File ${path} is binary; edit only changes text files. It was not changed.`,
      isError: true,
    });
    expect(await readFile(path)).toEqual(binary);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from("IHDR text"),
    ]);
    const image = await fileWith("img.png", png);
    expect((await edit("img.png", "text", "other")).content).toBe(
      `File ${image} is binary (image/png); edit only changes text files. It was not changed.`,
    );
  });

  it("numbers ambiguous matches as view numbers the lines, after a byte order mark", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    await fileWith("bom.txt", Buffer.concat([bom, Buffer.from("x\r\ny\r\nx\r\n")]));
    const result = await edit("bom.txt", "x", "z");
    expect(result.content).toContain("(lines 1, 3)");
    const view = await runTool(viewTool, { path: "bom.txt" }, makeContext(directory));
    expect(view.content).toBe("1. x\n2. y\n3. x");
  });
});
