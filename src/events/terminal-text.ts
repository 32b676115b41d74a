/*
 * Text that is not turnloop's own (a model's reply, a command's output, a tool's result, an MCP
 * server's text, a file name, a remote error) made plain for a model to read ({@link plainText})
 * and safe to draw on a terminal ({@link terminalText}, {@link argumentText}) (README, "Text from
 * elsewhere on your terminal"); events/errors.ts exports these to every layer.
 *
 * Without this a command printing `ESC[2J` wipes the screen, a reply holding `ESC]0;…BEL` sets the
 * terminal's title and `ESC]52;c;…` writes the clipboard. Nothing is kept, SGR colours included:
 * a colour left open would paint what turnloop draws after it, and the screen's width counts would
 * have to know of it.
 */

/**
 * The sequences of ECMA-48 (5th edition, 1991), in their 7-bit and 8-bit (C1) forms:
 * - control strings (OSC `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`), up to their
 *   terminator ST (`ESC \` or 0x9C) or, as xterm also takes for OSC, BEL; one never terminated
 *   loses only its opening, so that the rest of the text stays visible;
 * - control sequences (CSI `ESC [` or 0x9B): parameter bytes 0x30–0x3F, intermediate bytes
 *   0x20–0x2F, a final byte 0x40–0x7E;
 * - other escape sequences: `ESC`, intermediate bytes, a final byte 0x30–0x7E (`ESC 7`, `ESC (B`).
 */
const SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;

/** C0 controls but tab, newline and carriage return, DEL, C1 controls: removed after sequences. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_BUT_RETURN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * Characters that change how the text around them is drawn, or are not drawn at all, so that a
 * line can read differently from what runs or is written ("Trojan Source", Boucher and Anderson
 * 2021, CVE-2021-42574):
 * - Unicode's bidirectional formatting characters (UAX #9, section 2): the embeddings and
 *   overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E), the isolates LRI, RLI, FSI, PDI
 *   (U+2066–U+2069), and the implicit marks LRM, RLM (U+200E, U+200F) and ALM (U+061C), which
 *   reorder the neutral characters next to them; a terminal that reorders text (VTE, Konsole,
 *   mlterm) draws a line holding them in another order than its characters run;
 * - invisible characters that hide text inside a word or a name: soft hyphen U+00AD, Mongolian vowel separator U+180E, zero width space U+200B,
 *   word joiner and the invisible operators U+2060–U+2064, the deprecated format characters
 *   U+206A–U+206F, the byte order mark U+FEFF, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
 *   and the tag characters U+E0000–U+E007F (text no one sees but a model reads).
 * Zero width joiner and non-joiner (U+200D, U+200C) and the variation selectors are left: emoji
 * sequences and Persian and Indic writing need them, and they cannot reorder or hide a word.
 */
const HIDING_CHARACTER =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/u;
const HIDING_CHARACTERS = new RegExp(HIDING_CHARACTER.source, "gu");

/** C0 controls (tab and newline too), DEL, C1 controls, and the {@link HIDING_CHARACTER}s. */
const MARKED = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${HIDING_CHARACTER.source}`, "gu");

/** One character as its code point, e.g. `⟨U+202E⟩`: visible, and acting on nothing around it. */
function codePointMark(character: string): string {
  const hex = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
  return `⟨U+${hex}⟩`;
}

/**
 * `text` with every control character (tab and newline too) and every character that can reorder
 * or hide text ({@link HIDING_CHARACTER}) shown as its code point, e.g. `⟨U+001B⟩`: for a value
 * that must be drawn whole on one line, its oddities visible (the trust questions,
 * session/trust-lines.ts). Text drawn as lines is {@link terminalText}.
 */
export function markedText(text: string): string {
  return text.replace(MARKED, codePointMark);
}

/**
 * A tool call's argument (a command, a path) as every face draws it: {@link markedText} but its
 * tabs and newlines, so nothing in it is drawn over or left out (`⟨U+000D⟩`, `⟨U+001B⟩[2K`).
 */
export function argumentText(text: string): string {
  return text.replace(MARKED, (found) =>
    found === "\n" || found === "\t" ? found : codePointMark(found),
  );
}

/**
 * A command's output as a terminal leaves it (what the model reads, and the faces show): without
 * control sequences or control characters but tab and newline; after a `\r`, text overwrites its
 * line character by character (`10%\r55%\r100%` reads `100%`, `rm -rf x\rls` reads `ls -rf x`).
 * Text without a control character is returned as it is.
 */
export function plainText(text: string): string {
  if (!hasControl(text)) {
    return text;
  }
  const stripped = text.replace(SEQUENCE, "").replace(CONTROL_BUT_RETURN, "");
  return stripped.includes("\r") ? stripped.split("\n").map(drawnOver).join("\n") : stripped;
}

/** One line after its carriage returns ({@link plainText}). */
function drawnOver(line: string): string {
  if (!line.includes("\r")) {
    return line;
  }
  const cells: string[] = [];
  for (const part of line.split("\r")) {
    let column = 0;
    for (const character of part) {
      cells[column] = character;
      column++;
    }
  }
  return cells.join("");
}

/**
 * `text` as drawn on a terminal: without control sequences or control characters but tab and
 * newline (`\r\n` reads `\n`); a reply or a file is no progress bar: another `\r` and each
 * {@link HIDING_CHARACTER} shown as its code point, `⟨U+000D⟩`, `⟨U+202E⟩`.
 */
export function terminalText(text: string): string {
  const plain = hasControl(text)
    ? text
        .replace(SEQUENCE, "")
        .replace(CONTROL_BUT_RETURN, "")
        .replace(/\r\n/g, "\n")
        .replace(/\r/g, "⟨U+000D⟩")
    : text;
  if (!HIDING_CHARACTER.test(plain)) {
    return plain;
  }
  return plain.replace(HIDING_CHARACTERS, codePointMark);
}

/** Whether `text` holds a character {@link terminalText} would remove or change. */
function hasControl(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) {
      return true;
    }
  }
  return false;
}
