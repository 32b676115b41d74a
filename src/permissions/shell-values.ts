/**
 * What bash does with a variable's value beyond the words a command shows, for the permission
 * rules (shell-commands.ts; the session-17 trial): it evaluates it as arithmetic, which runs the
 * command substitutions of a subscript in it (`x='a[$(touch m)]'; (( x ))`, `[[ $x -eq 0 ]]`,
 * `declare -i n=$x`, `b[$x]=1`: {@link readEvaluation}); it evaluates the subscript of a name a
 * builtin is given (`read 'a[$(touch m)]'`, `unset`, `test -v`: {@link subscriptEvaluated},
 * {@link readNamesAndCommands}); and it passes it to a program that may read it as an option
 * (`o=--output=x; git log "$o"`, `git -c "$o" st`: {@link computedOption}). Each makes the command
 * one that cannot be fully read (`ShellAnalysis.unclear`).
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import { GLOBAL_OPTIONS_WITH_VALUE } from "./program-arguments.js";
import { type DecodedWord, decodeWord, sourceOf } from "./shell-words.js";

/** What reading a builtin's words needs: where reasons go, integer variables, a script reader. */
export interface BuiltinReading {
  unclear: string[];
  /** Variables declared with `-i` so far: bash evaluates what they are given as arithmetic. */
  integers: ReadonlySet<string>;
  readScript: (script: string) => void;
}

/**
 * Whether the variable name `text` (`a[$(touch m)]`, `a[i]`, `a[1]=x`) has a subscript bash
 * evaluates (as arithmetic for an indexed array, expanded for an associative one): anything but
 * a literal number.
 */
export function subscriptEvaluated(text: string): boolean {
  const subscript = /^[A-Za-z_]\w*\[(.*)\](?:\+?=|$)/s.exec(text)?.[1];
  return subscript !== undefined && !/^\s*\d+\s*$/.test(subscript);
}

/**
 * Builtins whose words name variables bash looks up or runs commands (the session-17 trial):
 * `unset NAME…`, `test -v NAME` / `[ -v NAME ]` (a computed word before a name may be `-v`), whose
 * names are unclear when computed or with a subscript bash evaluates; `compgen`/`complete` `-C
 * command` and `-F function`, read like a script when literal, and `-W words`, which it expands;
 * `history -r`/`-n`/`-s`, which fill the history `fc` and `!!` run again, and `set -H`, which
 * turns on `!!`.
 */
export function readNamesAndCommands(
  name: string,
  tail: readonly DecodedWord[],
  options: readonly DecodedWord[],
  { unclear, readScript }: BuiltinReading,
): void {
  const named =
    name === "unset"
      ? tail.filter((word) => !/^-[fvn]+$/.test(word.text))
      : name === "test" || name === "["
        ? tail.filter(
            (_, at) => /^-[vR]$/.test(tail[at - 1]?.text ?? "") || tail[at - 1]?.optionLike,
          )
        : [];
  const found = named.find((word) => word.computed || subscriptEvaluated(word.text));
  if (found !== undefined) {
    unclear.push(`${name} ${found.text}: bash evaluates the name's subscript or value`);
  }
  if (name === "compgen" || name === "complete") {
    for (const [at, word] of tail.entries()) {
      const [, letter, joined] = /^-[A-Za-z]*?([CFW])(.*)$/s.exec(word.text) ?? [];
      const value = joined ? { ...word, text: joined } : tail[at + 1];
      if (letter !== undefined && value !== undefined) {
        if (value.computed || (letter === "W" && /[$`]/.test(value.text))) {
          unclear.push(`${name} -${letter} ${value.text} runs or expands a computed command`);
        } else if (letter !== "W") {
          readScript(value.text);
        }
      }
    }
  }
  const history = name === "history" && options.some((word) => /[rns]/.test(word.text));
  if (history || (name === "set" && options.some((word) => /^-[a-zA-Z]*H/.test(word.text)))) {
    unclear.push(`${name} ${tail[0]?.text ?? ""}: the commands fc and !! run again are not read`);
  }
  if ((name === "set" || name === "shopt") && tail.some((word) => word.text === "histexpand")) {
    unclear.push(`${name} -o histexpand: the commands !! runs again are not read`);
  }
}

/** Variables a script has declared so far with `-i` (integers) and `-A` (associative arrays). */
export interface DeclaredVariables {
  integers: Set<string>;
  associative: Set<string>;
}

/** What a script starts with: bash's own associative arrays, `BASH_CMDS` and `BASH_ALIASES`. */
export function declaredVariables(): DeclaredVariables {
  return { integers: new Set(), associative: new Set(["BASH_CMDS", "BASH_ALIASES"]) };
}

/** mvdan-sh's `BinTestOperator`s `-eq`, `-ne`, `-le`, `-ge`, `-lt`, `-gt` (116–121), `-v`, `-R`. */
const ARITHMETIC_TESTS = new Set([116, 117, 118, 119, 120, 121]);
const NAME_TESTS = new Set([110, 111]);

/**
 * Where bash evaluates a variable's text as arithmetic, which runs the command substitutions of
 * a subscript in it (`x='a[$(touch m)]'; (( x ))`: the session-17 trial), pushed to `unclear`:
 * `$((…))`, `((…))`, `let`, `for ((…))` and `[[ x -eq y ]]` (and `-ne` … `-ge`; `[`/`test` do
 * no arithmetic) on anything but numbers and `$?`, `$#`; `[[ -v NAME ]]` with a computed name or
 * a subscript; an indexed array's subscript (`a[x]=1`, `a=([$x]=1)`); a value given to a
 * variable declared `-i` (`declare -i n=$x`, `local -i n; n=$x`). Records such declarations in
 * `declared`.
 */
export function readEvaluation(
  sh: ShellSyntax,
  node: ShellNode,
  source: Buffer,
  unclear: string[],
  declared: DeclaredVariables,
): void {
  const text = sourceOf(node, source);
  const numeric = (word: unknown) =>
    /^"?(?:[-+]?\d+|\$[?#]|\$\{[?#]\}|\$\{#\w+\})"?$/.test(sourceOf(word as ShellNode, source));
  switch (sh.NodeType(node)) {
    case "ArithmExp":
    case "ArithmCmd":
    case "LetClause":
    case "CStyleLoop":
      if (/[A-Za-z_$]/.test(text.replace(/^\$?\(\(|\)\)$|^let\b/g, ""))) {
        unclear.push(`arithmetic on variables (${text})`);
      }
      return;
    case "BinaryTest":
      if (ARITHMETIC_TESTS.has(node.Op as number) && ![node.X, node.Y].every(numeric)) {
        unclear.push(`arithmetic on variables (${text})`);
      }
      return;
    case "UnaryTest": {
      const word = NAME_TESTS.has(node.Op as number) && decodeWord(sh, node.X as ShellNode, source);
      if (word && (word.computed || subscriptEvaluated(word.text))) {
        unclear.push(`${text}: bash evaluates the name's subscript or value`);
      }
      return;
    }
    case "DeclClause":
      recordDeclarations(sh, node, source, declared);
      return;
    case "WordIter":
      if (declared.integers.has(String((node.Name as ShellNode | null)?.Value))) {
        unclear.push(`a value bash evaluates as arithmetic (${text})`);
      }
      return;
    case "Assign":
      readAssignedValue(node, source, unclear, declared, numeric);
      return;
    default:
      return;
  }
}

function recordDeclarations(
  sh: ShellSyntax,
  node: ShellNode,
  source: Buffer,
  declared: DeclaredVariables,
): void {
  const args = (node.Args as ShellNode[] | null) ?? [];
  const flags = args
    .filter((arg) => arg.Naked === true && arg.Value !== null && arg.Name === null)
    .map((arg) => decodeWord(sh, arg.Value as ShellNode, source).text)
    .filter((flag) => flag.startsWith("-"))
    .join("");
  for (const arg of args) {
    const name = (arg.Name as ShellNode | null)?.Value;
    if (typeof name === "string" && /i/.test(flags)) {
      declared.integers.add(name);
    }
    if (typeof name === "string" && /A/.test(flags)) {
      declared.associative.add(name);
    }
  }
}

/** An assignment's subscripts (`a[x]=1`, `a=([x]=1)`) and, for an integer variable, its values. */
function readAssignedValue(
  assign: ShellNode,
  source: Buffer,
  unclear: string[],
  declared: DeclaredVariables,
  numeric: (word: unknown) => boolean,
): void {
  const name = String((assign.Name as ShellNode | null)?.Value ?? "");
  const elements = ((assign.Array as ShellNode | null)?.Elems as ShellNode[] | null) ?? [];
  const indexed = !declared.associative.has(name);
  const indexes = [assign.Index, ...elements.map((element) => element.Index)];
  const values = [assign.Value, ...elements.map((element) => element.Value)];
  const text = sourceOf(assign, source);
  if (
    indexed &&
    indexes.some((index) => index !== null && index !== undefined && !numeric(index))
  ) {
    unclear.push(`a subscript bash evaluates as arithmetic (${text})`);
  } else if (declared.integers.has(name) && !values.every((value) => !value || numeric(value))) {
    unclear.push(`a value bash evaluates as arithmetic (${text}: ${name} is an integer)`);
  }
}

/**
 * Programs none of whose options writes a file it names, runs a program or changes a setting
 * (GNU coreutils', grep's and jq's manuals, bash's builtins): a computed word among their options
 * (`cat "$f"`, `ls $d`) adds nothing their text does not say. `test` and `[` are read for `-v`
 * ({@link readNamesAndCommands}); printf's options are read only in its first word.
 */
const PLAIN_OPTIONS = new Set(
  (
    "cat tac echo printf ls dir vdir head tail wc grep egrep fgrep cd pushd popd pwd basename " +
    "dirname realpath readlink stat du df true false : test [ mkdir rmdir rm cp mv ln touch " +
    "chmod chown chgrp tee uniq tr cut nl rev fold fmt paste join comm cmp diff seq sleep kill " +
    "wait exit return shift break continue unset getopts umask type jq column cksum md5sum " +
    "sha1sum sha256sum sha512sum b2sum base64 base32 od numfmt expr"
  ).split(" "),
);
/** git subcommands none of whose options writes a file it names, runs a program or configures. */
const GIT_PLAIN_SUBCOMMANDS = new Set(
  (
    "add status commit checkout switch restore branch tag reset rm mv rev-parse ls-files " +
    "ls-tree cat-file describe show-ref for-each-ref merge-base check-ignore check-attr"
  ).split(" "),
);
/** find's tests and actions that take the next word as a value that is not read as a primary. */
const FIND_VALUED =
  /^-(?:i?name|i?path|i?wholename|i?regex|i?lname|x?type|user|group|uid|gid|perm|size|[acm](?:time|min)|newer\w*|[ac]newer|samefile|inum|links|(?:max|min)depth|used|fstype|context|printf|regextype)$/;

/**
 * Why a computed word of `name tail…` may be an option that writes, runs or configures what its
 * text does not show (the session-17 trial: `o=--output=x; git log "$o"`, `git -c "$o" st`), or
 * undefined: a {@link DecodedWord.optionLike} word before `--`, unless `name` is one of
 * {@link PLAIN_OPTIONS}; for git, any computed word before its subcommand (a `-c`, `-C` or
 * `--config-env` value, or the subcommand itself) and one after a subcommand not of
 * {@link GIT_PLAIN_SUBCOMMANDS} (but a `-m` message); for find, one that is not a test's value
 * (`-name "$n"`), `--` or not. The caller leaves out wrappers and the script runners.
 */
export function computedOption(name: string, tail: readonly DecodedWord[]): string | undefined {
  const end = name === "find" ? -1 : tail.findIndex((word) => word.text === "--");
  const words = end === -1 ? tail : tail.slice(0, end);
  let start = 0;
  if (name === "git") {
    for (; start < words.length && words[start]?.computed !== true; start++) {
      const text = words[start]?.text ?? "";
      if (!text.startsWith("-")) {
        break;
      }
      start += GLOBAL_OPTIONS_WITH_VALUE.test(text) && words[start + 1]?.computed !== true ? 1 : 0;
    }
    const word = words[start];
    if (word?.computed === true) {
      return `git ${word.text}: a computed option, setting or subcommand of git`;
    }
    if (word === undefined || GIT_PLAIN_SUBCOMMANDS.has(word.text)) {
      return undefined;
    }
  } else if (PLAIN_OPTIONS.has(name)) {
    const first = name === "printf" && tail[0]?.optionLike === true ? tail[0] : undefined;
    return first && `printf ${first.text}: a computed word may be an option (-v sets a variable)`;
  }
  const valued = name === "find" ? FIND_VALUED : name === "git" ? /^(?:-m|--message)$/ : undefined;
  const first = name === "git" ? start + 1 : 0;
  const found = words.find(
    (word, at) =>
      at >= first && word.optionLike === true && valued?.test(words[at - 1]?.text ?? "") !== true,
  );
  return found === undefined
    ? undefined
    : `${name} ${found.text}: a computed word may be an option that writes, runs or configures`;
}

/** Shells by name: what they run is their script, read as one. */
export const SHELLS = new Set("bash sh dash zsh ksh mksh ash rbash yash posh fish".split(" "));
/** The words `xargs` adds to its command, read from its input. */
const XARGS_INPUT: DecodedWord = {
  text: "(words read by xargs)",
  ...{ computed: true, pattern: false, quoted: false, optionLike: true },
};

/**
 * {@link computedOption} of the command `name tail…` that `xargs` finally runs (past any wrapper),
 * with the words xargs reads from its input added at its end: one may be an option (`xargs git
 * log` reading `--output=x`); none for a shell, whose added words are its script's arguments
 * (wrappers are the caller's to leave out; program-runners.ts reads what xargs adds to both).
 */
export function xargsInputOption(name: string, tail: readonly DecodedWord[]): string | undefined {
  return SHELLS.has(name)
    ? undefined
    : computedOption(name.replace(/^[gb]f(?:in)?d$/, "find"), [...tail, XARGS_INPUT]);
}
