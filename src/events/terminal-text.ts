/**
 * Text that is not turnloop's own (a model's reply, a command's output, a tool's result, an MCP
 * server's text, a file name, a remote error) made safe to draw on a terminal, and plain for a
 * model to read: every terminal control sequence and control character is removed, tab and
 * newline kept (README, "Text from elsewhere on your terminal").
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

/** C0 controls but tab and newline, DEL, and C1 controls: what is left once sequences are gone. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A carriage return that a terminal would draw over: the text before it on its line is replaced
 * by what follows (a progress bar's `10%\r55%\r100%` reads `100%`). One before a newline (`\r\n`)
 * ends the line as the newline does.
 */
const OVERDRAWN = /[^\n\r]*\r+(?=[^\n\r])/g;

/**
 * `text` without terminal control sequences or control characters: tab and newline are kept, a
 * `\r\n` reads as `\n`, a line a carriage return draws over keeps what is drawn last. Text
 * without a control character (the usual case) is returned as it is.
 */
export function terminalText(text: string): string {
  if (!hasControl(text)) {
    return text;
  }
  return text.replace(SEQUENCE, "").replace(OVERDRAWN, "").replace(CONTROL, "");
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
