import { decodeWindows1252 } from "./windows-1252.js";

/**
 * `text` without one leading byte order mark (U+FEFF; UTF-8's EF BB BF), as {@link decodeFileBytes}
 * decodes AGENTS.md and every file `view` reads, and as VS Code and Node's own tooling read JSON:
 * every JSON file turnloop reads from a user (config files, `--mcp-config`, `.mcp.json`) is read
 * so. Windows PowerShell 5's `Out-File -Encoding utf8` and older Notepad write one.
 */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** The encodings {@link decodeFileBytes} recognises. */
export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/** A file's bytes as text, or the verdict that they are not text. */
export type DecodedFile =
  | {
      kind: "text";
      text: string;
      encoding: TextEncodingName;
      /** Whether the file starts with a byte order mark (not included in `text`). */
      byteOrderMark: boolean;
    }
  | {
      kind: "binary";
      /** A media type when the magic bytes tell one (`image/png`, `application/zip` …). */
      mediaType: string | undefined;
      /** Whether `mediaType` is an image a multimodal model could look at. */
      isImage: boolean;
    };

interface MagicSignature {
  mediaType: string;
  bytes: readonly number[];
  offset?: number;
  isImage: boolean;
}

const MAGIC_SIGNATURES: readonly MagicSignature[] = [
  {
    mediaType: "image/png",
    bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    isImage: true,
  },
  { mediaType: "image/jpeg", bytes: [0xff, 0xd8, 0xff], isImage: true },
  { mediaType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38], isImage: true },
  { mediaType: "image/webp", bytes: [0x57, 0x45, 0x42, 0x50], offset: 8, isImage: true },
  { mediaType: "application/pdf", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], isImage: false },
  { mediaType: "application/zip", bytes: [0x50, 0x4b, 0x03, 0x04], isImage: false },
  { mediaType: "application/gzip", bytes: [0x1f, 0x8b], isImage: false },
  { mediaType: "application/x-elf", bytes: [0x7f, 0x45, 0x4c, 0x46], isImage: false },
];

/** How much of a file the control-character heuristic looks at, in bytes. */
const SNIFF_BYTES = 64 * 1024;

/**
 * Above this share of control characters, bytes that are neither UTF-8 nor NUL-bearing are taken
 * as binary rather than legacy 8-bit text (real Latin-1 / CP1252 text has almost none).
 */
const MAX_CONTROL_CHARACTER_SHARE = 0.01;

/**
 * Decodes a whole file's bytes. UTF-8 (BOM stripped) and UTF-16 LE/BE with a BOM are decoded as
 * such; bytes with NULs or too many control characters, or known binary magic numbers, are
 * binary; anything else is legacy 8-bit text, decoded as windows-1252 (the WHATWG meaning of
 * "latin1"), which maps every byte to a character and so never produces U+FFFD.
 */
export function decodeFileBytes(bytes: Uint8Array): DecodedFile {
  const signature = findMagicSignature(bytes);
  if (signature) {
    return { kind: "binary", mediaType: signature.mediaType, isImage: signature.isImage };
  }
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) {
    const text = decodeStrictUtf8(bytes.subarray(3));
    if (text !== undefined && !text.includes("\u0000")) {
      return { kind: "text", text, encoding: "utf-8", byteOrderMark: true };
    }
  }
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) {
    const encoding = bytes[0] === 0xff ? "utf-16le" : "utf-16be";
    const text = new TextDecoder(encoding).decode(bytes.subarray(2));
    if (!text.includes("\u0000")) {
      return { kind: "text", text, encoding, byteOrderMark: true };
    }
  }
  if (bytes.includes(0)) {
    return { kind: "binary", mediaType: undefined, isImage: false };
  }
  const utf8Text = decodeStrictUtf8(bytes);
  if (utf8Text !== undefined) {
    return { kind: "text", text: utf8Text, encoding: "utf-8", byteOrderMark: false };
  }
  if (controlCharacterShare(bytes.subarray(0, SNIFF_BYTES)) > MAX_CONTROL_CHARACTER_SHARE) {
    return { kind: "binary", mediaType: undefined, isImage: false };
  }
  return {
    kind: "text",
    text: decodeWindows1252(bytes),
    encoding: "windows-1252",
    byteOrderMark: false,
  };
}

/**
 * Whether a file starting with `bytes` (its first bytes, at least 12 of them) is read by
 * {@link decodeFileBytes} as UTF-8 without a byte order mark if the whole file is valid UTF-8
 * without NUL: no magic number of a binary format, no byte order mark.
 */
export function startsAsPlainText(bytes: Uint8Array): boolean {
  return (
    findMagicSignature(bytes) === undefined &&
    !startsWith(bytes, [0xef, 0xbb, 0xbf]) &&
    !startsWith(bytes, [0xff, 0xfe]) &&
    !startsWith(bytes, [0xfe, 0xff])
  );
}

function findMagicSignature(bytes: Uint8Array): MagicSignature | undefined {
  return MAGIC_SIGNATURES.find((signature) =>
    startsWith(bytes.subarray(signature.offset ?? 0), signature.bytes),
  );
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.length <= bytes.length && prefix.every((byte, index) => bytes[index] === byte);
}

function decodeStrictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Share of bytes that are C0 controls other than tab, newlines, form feed and escape. */
function controlCharacterShare(bytes: Uint8Array): number {
  if (bytes.length === 0) {
    return 0;
  }
  let controls = 0;
  for (const byte of bytes) {
    const isAllowedControl = (byte >= 0x09 && byte <= 0x0d) || byte === 0x1b;
    if (byte < 0x20 && !isAllowedControl) {
      controls += 1;
    }
  }
  return controls / bytes.length;
}
