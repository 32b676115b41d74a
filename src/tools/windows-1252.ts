/**
 * windows-1252 by our own table rather than `TextDecoder("windows-1252")`: Node since 20.18.3 and
 * 22.13.0 decodes that label as ISO-8859-1, turning bytes 0x80–0x9F (€, smart quotes, dashes)
 * into C1 control characters (nodejs/node#60888). The table is the WHATWG index: it maps every
 * byte to a distinct character (the five bytes Windows leaves undefined to the same-numbered C1
 * controls), so decoding and encoding round-trip every file byte for byte.
 */

/** Characters of bytes 0x80–0x9F; every other byte is the code point of the same number. */
const HIGH_CONTROL_RANGE =
  "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F" +
  "\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178";

const BYTE_OF_CHARACTER: ReadonlyMap<string, number> = (() => {
  const table = new Map<string, number>();
  for (let byte = 0; byte < 256; byte += 1) {
    table.set(characterOfByte(byte), byte);
  }
  return table;
})();

function characterOfByte(byte: number): string {
  if (byte >= 0x80 && byte <= 0x9f) {
    return HIGH_CONTROL_RANGE.charAt(byte - 0x80);
  }
  return String.fromCharCode(byte);
}

/** Decodes windows-1252 bytes; every byte gives one character, so nothing becomes U+FFFD. */
export function decodeWindows1252(bytes: Uint8Array): string {
  // Latin-1 is windows-1252 outside 0x80–0x9F, and Buffer decodes it natively (fast on big files).
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1")
    .replace(/[\u0080-\u009F]/g, (character) => characterOfByte(character.charCodeAt(0)));
}

/**
 * The windows-1252 byte of each character of `text`, or the index of the first character the
 * encoding cannot hold.
 */
export function encodeWindows1252(
  text: string,
): { ok: true; bytes: Uint8Array } | { ok: false; index: number } {
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) {
    const byte = BYTE_OF_CHARACTER.get(text.charAt(index));
    if (byte === undefined) {
      return { ok: false, index };
    }
    bytes[index] = byte;
  }
  return { ok: true, bytes };
}
