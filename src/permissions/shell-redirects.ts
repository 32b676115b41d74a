/**
 * Whether a redirection writes a file, for the permission rules (shell-commands.ts): `>`, `>>`,
 * `&>` … to anything but /dev/null and the like, and `>& file`.
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import { decodeWord } from "./shell-words.js";

/** Redirection operators (mvdan/sh `RedirOperator`) that write to their target. */
const WRITING_REDIRECTS = new Set([54, 55, 57, 60, 64, 65]);
/** `>&` and `<&`: duplicate a descriptor, or (`>& file`) write a file. */
const DUPLICATING_REDIRECTS = new Set([58, 59]);
/** `<<<`, `<<`, `<<-`: text on stdin. */
const STDIN_TEXT_REDIRECTS = new Set([61, 62, 63]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"]);

/** Whether the `Redirect` node `node` writes to a file; `source` is the UTF-8 text parsed. */
export function redirectWritesFile(sh: ShellSyntax, node: ShellNode, source: Buffer): boolean {
  const operator = node.Op as number;
  const word = node.Word as ShellNode | null;
  if (word === null || STDIN_TEXT_REDIRECTS.has(operator)) {
    return false;
  }
  const target = decodeWord(sh, word, source);
  const harmless = !target.computed && HARMLESS_TARGETS.has(target.text);
  if (WRITING_REDIRECTS.has(operator) && !harmless) {
    return true;
  }
  return DUPLICATING_REDIRECTS.has(operator) && !/^(?:\d+|-)$/.test(target.text) && !harmless;
}
