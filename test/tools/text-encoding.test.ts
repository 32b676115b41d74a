import { describe, expect, it } from "vitest";
import { decodeFileBytes } from "../../src/tools/text-decoding.js";
import { encodeFileText } from "../../src/tools/text-encoding.js";
import { decodeWindows1252, encodeWindows1252 } from "../../src/tools/windows-1252.js";

describe("windows-1252", () => {
  it("decodes 0x80-0x9F as Windows does (€, smart quotes), not as C1 controls", () => {
    const bytes = Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80, 0x35, 0x20, 0x96, 0x20, 0xe9]);
    expect(decodeWindows1252(bytes)).toBe("“q” €5 – é");
    expect(decodeFileBytes(bytes)).toEqual({
      kind: "text",
      text: "“q” €5 – é",
      encoding: "windows-1252",
      byteOrderMark: false,
    });
  });

  it("round-trips all 256 bytes", () => {
    const every = Uint8Array.from({ length: 256 }, (_, index) => index);
    const text = decodeWindows1252(every);
    expect(text).toHaveLength(256);
    expect(text).not.toContain("\uFFFD");
    expect(encodeWindows1252(text)).toEqual({ ok: true, bytes: every });
  });

  it("reports the first character it cannot hold, with its line", () => {
    expect(encodeFileText("ok\nstill ok\nnot 中 ok", "windows-1252", false)).toEqual({
      ok: false,
      character: "中",
      line: 3,
    });
  });
});

describe("encodeFileText", () => {
  it("writes byte order marks back and keeps UTF-16 byte order", () => {
    expect(encodeFileText("é", "utf-8", true)).toEqual({
      ok: true,
      bytes: Buffer.from([0xef, 0xbb, 0xbf, 0xc3, 0xa9]),
    });
    expect(encodeFileText("é", "utf-16le", true)).toEqual({
      ok: true,
      bytes: Buffer.from([0xff, 0xfe, 0xe9, 0x00]),
    });
    expect(encodeFileText("é", "utf-16be", true)).toEqual({
      ok: true,
      bytes: Buffer.from([0xfe, 0xff, 0x00, 0xe9]),
    });
  });

  it("refuses a lone surrogate in UTF-8 rather than writing U+FFFD", () => {
    expect(encodeFileText("a\uDC00", "utf-8", false)).toEqual({
      ok: false,
      character: "\\uDC00",
      line: 1,
    });
    expect(encodeFileText("😀", "utf-8", false)).toEqual({
      ok: true,
      bytes: Buffer.from("😀"),
    });
  });
});
