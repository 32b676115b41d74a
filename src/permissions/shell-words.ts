/**
 * Words of mvdan/sh's syntax tree as bash sees them after quote removal: `"r"\m` is `rm`,
 * `$'\x72m'` is `rm`; expansions (`$x`, `$(…)`) are marked computed and keep their source text.
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";

/** A word after quote removal. */
export interface DecodedWord {
  text: string;
  /** Holds an expansion (`$x`, `$(…)`, `$((…))`): its value is known only when it runs. */
  computed: boolean;
  /** Holds unquoted glob or brace characters (`*`, `?`, `[`, `{a,b}`). */
  pattern: boolean;
  /** Was written with quotes or backslashes (`'test/*.js'`, `"x"`, `a\ b`). */
  quoted: boolean;
}

/** Decodes one `Word` node; `source` is the UTF-8 text that was parsed. */
export function decodeWord(sh: ShellSyntax, word: ShellNode, source: Buffer): DecodedWord {
  const decoded: DecodedWord = { text: "", computed: false, pattern: false, quoted: false };
  for (const part of (word.Parts as ShellNode[] | null) ?? []) {
    decodePart(sh, part, source, decoded, false);
  }
  return decoded;
}

function decodePart(
  sh: ShellSyntax,
  part: ShellNode,
  source: Buffer,
  decoded: DecodedWord,
  quoted: boolean,
): void {
  const type = sh.NodeType(part);
  switch (type) {
    case "Lit": {
      const value = String(part.Value ?? "");
      decoded.quoted ||= quoted || value.includes("\\");
      if (!quoted && (/(?<!\\)[*?[]/.test(value) || /\{[^}]*(?:,|\.\.)[^}]*\}/.test(value))) {
        decoded.pattern = true;
      }
      decoded.text += quoted
        ? value.replace(/\\([$`"\\\n])/g, (_match, character: string) =>
            character === "\n" ? "" : character,
          )
        : value.replace(/\\(.)/gs, (_match, character: string) =>
            character === "\n" ? "" : character,
          );
      return;
    }
    case "SglQuoted": {
      decoded.quoted = true;
      const value = String(part.Value ?? "");
      decoded.text += part.Dollar === true ? decodeAnsiC(value) : value;
      return;
    }
    case "DblQuoted":
      decoded.quoted = true;
      for (const inner of (part.Parts as ShellNode[] | null) ?? []) {
        decodePart(sh, inner, source, decoded, true);
      }
      return;
    case "ExtGlob":
      decoded.pattern = true;
      decoded.text += sourceOf(part, source);
      return;
    default:
      // ParamExp, CmdSubst, ArithmExp, ProcSubst: known only when the command runs.
      decoded.computed = true;
      decoded.text += sourceOf(part, source);
      return;
  }
}

const ANSI_C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** The value of bash's `$'…'` quoting: `\n`, `\xHH`, `\NNN` (octal), `\uHHHH`, `\cX` … */
function decodeAnsiC(value: string): string {
  return value.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (match, sequence: string) => {
      const head = sequence[0] ?? "";
      if (head === "x" || head === "u" || head === "U") {
        return String.fromCodePoint(Number.parseInt(sequence.slice(1), 16));
      }
      if (/[0-7]/.test(head)) {
        return String.fromCodePoint(Number.parseInt(sequence, 8));
      }
      if (head === "c") {
        return String.fromCharCode((sequence.charCodeAt(1) || 64) & 0x1f);
      }
      return ANSI_C_ESCAPES[sequence] ?? match;
    },
  );
}

/** The text of `node`: mvdan/sh positions are byte offsets into the UTF-8 source. */
export function sourceOf(node: ShellNode, source: Buffer): string {
  return source.subarray(node.Pos().Offset(), node.End().Offset()).toString("utf8");
}

/** `/bin/rm` → `rm`; `rm` stays. */
export function baseName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 || slash === word.length - 1 ? word : word.slice(slash + 1);
}

/** `${x@P}`, `${a[i]}`, `${!x}`, `${x/a/b}` …: operators that evaluate or re-read a value. */
export function expansionRunsCode(node: ShellNode): boolean {
  return (
    Boolean(node.Exp) ||
    Boolean(node.Index) ||
    node.Excl === true ||
    Boolean(node.Repl) ||
    Boolean(node.Slice)
  );
}
