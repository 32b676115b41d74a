import type { TextEncodingName } from "./text-decoding.js";
import { encodeWindows1252 } from "./windows-1252.js";

/** Text turned back into a file's bytes, or the first character its encoding cannot hold. */
export type EncodedText =
  | { ok: true; bytes: Uint8Array }
  | {
      ok: false;
      /** The character that cannot be written (a lone surrogate is shown as `\uD800`). */
      character: string;
      /** 1-based line of that character in the text. */
      line: number;
    };

const UTF8_BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];
const UTF16LE_BYTE_ORDER_MARK = [0xff, 0xfe];
const UTF16BE_BYTE_ORDER_MARK = [0xfe, 0xff];

/**
 * Encodes `text` in `encoding`, with the byte order mark when `byteOrderMark` is set: the inverse
 * of {@link decodeFileBytes}. Never substitutes: a character the encoding cannot hold (anything
 * outside windows-1252 for that encoding; a lone surrogate for UTF-8) is reported instead, since
 * Node would otherwise write `?` or U+FFFD and corrupt the file.
 */
export function encodeFileText(
  text: string,
  encoding: TextEncodingName,
  byteOrderMark: boolean,
): EncodedText {
  switch (encoding) {
    case "utf-8": {
      const loneSurrogate = findLoneSurrogate(text);
      if (loneSurrogate !== undefined) {
        return unencodable(text, loneSurrogate);
      }
      return withMark(Buffer.from(text, "utf8"), byteOrderMark ? UTF8_BYTE_ORDER_MARK : []);
    }
    case "utf-16le":
      // UTF-16 holds every JavaScript string, lone surrogates included, unit for unit.
      return withMark(Buffer.from(text, "utf16le"), byteOrderMark ? UTF16LE_BYTE_ORDER_MARK : []);
    case "utf-16be":
      return withMark(
        Buffer.from(text, "utf16le").swap16(),
        byteOrderMark ? UTF16BE_BYTE_ORDER_MARK : [],
      );
    case "windows-1252": {
      const encoded = encodeWindows1252(text);
      return encoded.ok ? encoded : unencodable(text, encoded.index);
    }
  }
}

function withMark(body: Buffer, mark: readonly number[]): EncodedText {
  return { ok: true, bytes: mark.length === 0 ? body : Buffer.concat([Buffer.from(mark), body]) };
}

/** Index of the first UTF-16 surrogate that is not half of a pair, if any. */
function findLoneSurrogate(text: string): number | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        index += 1;
        continue;
      }
      return index;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      return index;
    }
  }
  return undefined;
}

function unencodable(text: string, index: number): EncodedText {
  const codePoint = text.codePointAt(index) ?? 0;
  const isLoneSurrogate = codePoint >= 0xd800 && codePoint <= 0xdfff;
  const character = isLoneSurrogate
    ? `\\u${codePoint.toString(16).toUpperCase()}`
    : String.fromCodePoint(codePoint);
  const line = text.slice(0, index).split("\n").length;
  return { ok: false, character, line };
}

/** `U+00E9 "é"`: a character as a model can recognise it in an error message. */
export function describeCharacter(character: string): string {
  const codePoint = character.startsWith("\\u")
    ? Number.parseInt(character.slice(2), 16)
    : (character.codePointAt(0) ?? 0);
  const name = `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
  return character.startsWith("\\u") ? `${name} (a lone surrogate)` : `${name} "${character}"`;
}
