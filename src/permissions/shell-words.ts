/**
 * Words of mvdan/sh's syntax tree as bash sees them after quote removal: `"r"\m` is `rm`,
 * `$'\x72m'` is `rm`; expansions (`$x`, `$(…)`) are marked computed and keep their source text.
 * A command's words are brace-expanded as bash expands them ({@link expandWords}).
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";

/** A word after quote removal. */
export interface DecodedWord {
  text: string;
  /** Holds an expansion (`$x`, `$(…)`, `$((…))`): its value is known only when it runs. */
  computed: boolean;
  /**
   * Holds unquoted glob characters (`*`, `?`, `[`), or a brace expansion (`{a,b}`) when not
   * expanded ({@link decodeWord}).
   */
  pattern: boolean;
  /** Was written with quotes or backslashes (`'test/*.js'`, `"x"`, `a\ b`). */
  quoted: boolean;
  /**
   * An expansion may make it, or a word it splits into, an option the text does not show: it
   * starts with one (`"$o"`, `$@`), holds one unquoted (`a$x` splits), or is an option whose name
   * holds one (`-$x`, `--$x=1`; `--format=$x` is not).
   */
  optionLike?: boolean;
}

/**
 * One character of a word after quote removal, or an expansion (`$x`, `$(…)`) or extended glob
 * (`@(a|b)`) kept whole: what brace expansion and globbing see of it.
 */
interface Piece {
  text: string;
  /** Quoted or escaped: never a brace, comma or glob character. */
  quoted: boolean;
  computed: boolean;
  /** An unquoted `*`, `?`, `[` or an extended glob. */
  glob: boolean;
}

/** Decodes one `Word` node; `source` is the UTF-8 text that was parsed. */
export function decodeWord(sh: ShellSyntax, word: ShellNode, source: Buffer): DecodedWord {
  const pieces = wordPieces(sh, word, source);
  const decoded = joinPieces(pieces);
  decoded.pattern ||= (braceExpand(pieces)?.length ?? 2) !== 1;
  return decoded;
}

function wordPieces(sh: ShellSyntax, word: ShellNode, source: Buffer): Piece[] {
  const pieces: Piece[] = [];
  for (const part of (word.Parts as ShellNode[] | null) ?? []) {
    decodePart(sh, part, source, pieces, false);
  }
  return pieces;
}

function joinPieces(pieces: readonly Piece[]): DecodedWord {
  return {
    text: pieces.map((piece) => piece.text).join(""),
    computed: pieces.some((piece) => piece.computed),
    pattern: pieces.some((piece) => piece.glob),
    quoted: pieces.some((piece) => piece.quoted),
    optionLike: optionLike(pieces.filter((piece) => piece.text !== "")),
  };
}

/** {@link DecodedWord.optionLike} of a word's non-empty pieces. */
function optionLike(pieces: readonly Piece[]): boolean {
  if (pieces[0]?.computed === true || pieces.some((piece) => piece.computed && !piece.quoted)) {
    return true;
  }
  const equals = pieces.findIndex((piece) => piece.text === "=" && !piece.computed);
  const name = equals === -1 ? pieces : pieces.slice(0, equals);
  return pieces[0]?.text === "-" && name.some((piece) => piece.computed);
}

function characters(text: string, quoted: boolean): Piece[] {
  return [...text].map((character) => ({ text: character, quoted, computed: false, glob: false }));
}

function decodePart(
  sh: ShellSyntax,
  part: ShellNode,
  source: Buffer,
  pieces: Piece[],
  quoted: boolean,
): void {
  const type = sh.NodeType(part);
  switch (type) {
    case "Lit":
      pieces.push(...literalPieces(String(part.Value ?? ""), quoted));
      return;
    case "SglQuoted": {
      const value = String(part.Value ?? "");
      pieces.push(...characters(part.Dollar === true ? decodeAnsiC(value) : value, true));
      // An empty '' still makes the word quoted.
      pieces.push({ text: "", quoted: true, computed: false, glob: false });
      return;
    }
    case "DblQuoted":
      for (const inner of (part.Parts as ShellNode[] | null) ?? []) {
        decodePart(sh, inner, source, pieces, true);
      }
      pieces.push({ text: "", quoted: true, computed: false, glob: false });
      return;
    case "ExtGlob":
      pieces.push({ text: sourceOf(part, source), quoted, computed: false, glob: true });
      return;
    default:
      // ParamExp, CmdSubst, ArithmExp, ProcSubst: known only when the command runs.
      pieces.push({ text: sourceOf(part, source), quoted, computed: true, glob: false });
      return;
  }
}

/** A literal's characters, its backslash escapes removed (inside double quotes, bash's few). */
function literalPieces(value: string, quoted: boolean): Piece[] {
  const pieces: Piece[] = [];
  for (let at = 0; at < value.length; at++) {
    const character = value[at] ?? "";
    const next = value[at + 1];
    if (character === "\\" && next !== undefined && (!quoted || /[$`"\\\n]/.test(next))) {
      at++;
      if (next !== "\n") {
        pieces.push({ text: next, quoted: true, computed: false, glob: false });
      }
      continue;
    }
    const glob =
      !quoted && (/[*?]/.test(character) || (character === "[" && value.includes("]", at)));
    pieces.push({ text: character, quoted, computed: false, glob });
  }
  return pieces;
}

/** Brace expansions of one word bash performs before anything else: more are not followed. */
const MAX_BRACE_WORDS = 256;

/**
 * The words of `args` (`Word` nodes) as bash passes them to the program: each brace expansion
 * made (`--{output=x,oneline}` is `--output=x --oneline`, `{rm,x}` is `rm x`; trial finding
 * 20), each glob kept as written. Why a word cannot be read goes to `unclear`: a brace
 * expansion of more than {@link MAX_BRACE_WORDS} words, or a glob that may expand to an option
 * ({@link globMayBeOption}: `--outpu*` matches a file named `--output=x`).
 */
export function expandWords(
  sh: ShellSyntax,
  args: readonly ShellNode[],
  source: Buffer,
  unclear: string[],
): DecodedWord[] {
  return args.flatMap((arg) => {
    const pieces = wordPieces(sh, arg, source);
    const expanded = braceExpand(pieces);
    if (expanded === undefined) {
      unclear.push(
        `a brace expansion of more than ${MAX_BRACE_WORDS} words (${sourceOf(arg, source)})`,
      );
      return [joinPieces(pieces)];
    }
    const words = expanded.filter((word) =>
      word.some((piece) => piece.text !== "" || piece.quoted),
    );
    for (const word of words) {
      if (globMayBeOption(word)) {
        unclear.push(`a glob that may expand to an option (${joinPieces(word).text})`);
      }
    }
    return words.map(joinPieces);
  });
}

/**
 * Whether the glob in `word` may expand to a word starting with `-`, which the program would
 * read as an option: it starts with `-` (`--outpu*`, `-*`), with `?`, `[` or an extended glob,
 * or with `*` followed by nothing (`*`) or by text holding `-` or `=` (`*-output=x`). Ordinary
 * globs stay readable: `*.o`, `src/*.ts`, `test_*`.
 */
function globMayBeOption(word: readonly Piece[]): boolean {
  if (!word.some((piece) => piece.glob)) {
    return false;
  }
  const first = word.find((piece) => piece.text !== "");
  if (first === undefined || first.computed) {
    return false;
  }
  if (first.text === "-" || (first.glob && first.text !== "*")) {
    return true;
  }
  if (!first.glob) {
    return false;
  }
  const rest = word
    .slice(word.indexOf(first))
    .filter((piece) => !(piece.glob && piece.text === "*"))
    .map((piece) => piece.text)
    .join("");
  return (
    word.filter((piece) => piece.text !== "").every((piece) => piece.glob) || /[-=]/.test(rest)
  );
}

function isCharacter(piece: Piece | undefined, character: string): boolean {
  return piece !== undefined && !piece.quoted && !piece.computed && piece.text === character;
}

/** bash's brace expansion of `pieces`, left to right; undefined past {@link MAX_BRACE_WORDS}. */
function braceExpand(pieces: readonly Piece[]): Piece[][] | undefined {
  for (let open = 0; open < pieces.length; open++) {
    if (!isCharacter(pieces[open], "{")) {
      continue;
    }
    const body = braceBody(pieces, open);
    if (body === undefined) {
      continue;
    }
    if (body === "too many") {
      return undefined;
    }
    const results: Piece[][] = [];
    const head = pieces.slice(0, open);
    const rest = pieces.slice(body.close + 1);
    for (const alternative of body.alternatives) {
      const expanded = braceExpand([...head, ...alternative, ...rest]);
      if (expanded === undefined || results.length + expanded.length > MAX_BRACE_WORDS) {
        return undefined;
      }
      results.push(...expanded);
    }
    return results;
  }
  return [[...pieces]];
}

/**
 * The brace expression opened at `open`: its alternatives (`{a,b}`, or a sequence `{1..3}`,
 * `{a..e..2}`) and where it closes; undefined when it is not one (`{a}`, `{}`, no `}`).
 */
function braceBody(
  pieces: readonly Piece[],
  open: number,
): { close: number; alternatives: Piece[][] } | "too many" | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let at = open + 1; at < pieces.length; at++) {
    const piece = pieces[at];
    if (isCharacter(piece, "{")) {
      depth++;
    } else if (isCharacter(piece, ",") && depth === 0) {
      commas.push(at);
    } else if (isCharacter(piece, "}") && depth-- === 0) {
      if (commas.length > 0) {
        const bounds = [open, ...commas, at];
        const alternatives = bounds
          .slice(1)
          .map((end, index) => pieces.slice((bounds[index] ?? 0) + 1, end));
        return { close: at, alternatives };
      }
      const sequence = braceSequence(pieces.slice(open + 1, at));
      return sequence === "too many" ? sequence : sequence && { close: at, alternatives: sequence };
    }
  }
  return undefined;
}

/** `1..5`, `-2..2..2`, `01..10`, `a..e`: the words of a sequence expression. */
function braceSequence(pieces: readonly Piece[]): Piece[][] | "too many" | undefined {
  if (pieces.some((piece) => piece.quoted || piece.computed)) {
    return undefined;
  }
  const text = pieces.map((piece) => piece.text).join("");
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numbers ?? letters;
  if (match === null) {
    return undefined;
  }
  const [from, to] = numbers
    ? [Number(match[1]), Number(match[2])]
    : [(match[1] ?? "").charCodeAt(0), (match[2] ?? "").charCodeAt(0)];
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step + 1 > MAX_BRACE_WORDS) {
    return "too many";
  }
  const padded = numbers ? Math.max((match[1] ?? "").length, (match[2] ?? "").length) : 0;
  const zeros = numbers !== null && [match[1], match[2]].some((end) => /^-?0\d/.test(end ?? ""));
  const words: Piece[][] = [];
  for (
    let value = from;
    from <= to ? value <= to : value >= to;
    value += from <= to ? step : -step
  ) {
    const word = numbers ? String(value) : String.fromCharCode(value);
    const text = zeros
      ? value < 0
        ? `-${String(-value).padStart(padded - 1, "0")}`
        : word.padStart(padded, "0")
      : word;
    words.push(characters(text, false));
  }
  return words;
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

/** Redirection operators (mvdan/sh `RedirOperator`) that write to their target. */
const WRITING_REDIRECTS = new Set([54, 55, 57, 60, 64, 65]);
/** `>&` and `<&`: duplicate a descriptor, or (`>& file`) write a file. */
const DUPLICATING_REDIRECTS = new Set([58, 59]);
/** `<<<`, `<<`, `<<-`: text on stdin. */
const STDIN_TEXT_REDIRECTS = new Set([61, 62, 63]);
/** Files a write to which changes nothing on disk. */
export const HARMLESS_TARGETS: ReadonlySet<string> = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "-",
]);

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
