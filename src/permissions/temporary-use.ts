/**
 * How a bash command uses the sandbox's private `/tmp` (tools/sandbox/private-temporary.ts words
 * what the model is told of it), read from the command's syntax tree as the permission rules read
 * it (shell-commands.ts: quotes removed, wrappers peeled off, `bash -c` scripts and `$(…)` read):
 * the files its redirections name, where `cd` takes it, what `mktemp` makes, and the file
 * arguments of each program. Passed down to the sandboxed runner by the host (tools/ does not
 * import permissions/), loaded with it, not at start-up.
 */

import type { TemporaryUse } from "../tools/sandbox/private-temporary.js";
import { isInside } from "../tools/sandbox/real-paths.js";
import type { ShellAnalysis } from "./shell-analysis.js";
import { analyseShellCommand, baseName } from "./shell-commands.js";
import type { DecodedWord } from "./shell-words.js";

/**
 * Programs that only read the files they are given (what they print goes to stdout), so naming
 * a path under `/tmp` as one of their arguments wrote nothing there.
 */
const READERS = new Set(
  (
    "ls cat head tail stat file wc du df test [ readlink realpath tree grep egrep fgrep rg diff " +
    "cmp md5sum sha1sum sha256sum sha512sum xxd od hexdump less more pwd"
  ).split(" "),
);
/** Programs whose arguments are text, not files (`echo "see /tmp"`). */
const TEXT_ARGUMENTS = new Set(["echo", "printf", "basename", "dirname", ":", "true", "false"]);
/** Programs whose first operand is a pattern, unless `-e`/`-f` give it, and their options that take the next word. */
const PATTERN_FIRST: Readonly<Record<string, string>> = {
  grep: "ABCDdefm",
  egrep: "ABCDdefm",
  fgrep: "ABCDdefm",
  rg: "ABCEMTefgjmrt",
};
/** Programs that change the shell's folder for the commands after them. */
const FOLDER_CHANGERS = new Set(["cd", "pushd"]);
/** `$TMPDIR`, `${TMPDIR}` or `${TMPDIR:-…}` at a word's start: the sandbox sets TMPDIR to `/tmp`. */
const TEMPORARY_VARIABLE = /^\$(?:TMPDIR(?!\w)|\{TMPDIR(?::?[-=][^}]*)?\})/;
/** A path under `/tmp` inside a word of code (`open('/tmp/x', 'w')`), not `x/tmp`, `./tmp`, `~/tmp`. */
const EMBEDDED_PATH = /(?<![\w.~/$}-])\/tmp(?:\/[^\s'"`;|&<>()]*)?/g;
/** An option's value glued to it: `--output=/tmp/x`, `-o/tmp/x`. */
const OPTION_VALUE = /^(?:--?[\w-]+=|-\w(?=\/))(.*)$/s;

/**
 * How `command` uses the sandbox's private `/tmp`, ignoring paths inside `roots` (the workspace
 * and added folders, mounted again over it when they live there): `wrote` when it wrote or may
 * have (a redirection of output there, `mktemp` without a folder of its own, a program not known
 * to only read given such a path, any program not known to only read run after `cd` there);
 * `read` when it only read there (a reader's file argument, `< /tmp/x`, `cd /tmp`); `undefined`
 * when it did neither (`echo "see /tmp"`, `grep -r /tmp src`, `curl http://x/tmp/y`,
 * `ls ./build/tmp`). A path built at run time other than `$TMPDIR/…` is missed; text given on
 * stdin (`python - <<EOF`) is not read. Invalid bash, which may have run in part, counts as
 * `wrote` when it mentions such a path. Never throws.
 */
export function temporaryUse(command: string, roots: readonly string[]): TemporaryUse | undefined {
  const outside = (path: string | undefined) =>
    path !== undefined && !roots.some((root) => isInside(path, root));
  const analysis = analyseShellCommand(command);
  if (analysis.unclear.some((reason) => reason.startsWith("not valid bash"))) {
    return [...analysis.mentions].some((word) => outside(temporaryPath(word)))
      ? "wrote"
      : undefined;
  }
  const uses: TemporaryUse[] = analysis.redirections
    .filter((redirection) => outside(temporaryPath(redirection.target.text)))
    .map((redirection) => (redirection.writes ? "wrote" : "read"));
  let inTemporary = false;
  for (const { runs } of analysis.commands) {
    const [name, ...operands] = runs;
    const program = name === undefined || name.computed ? undefined : baseName(name.text);
    if (program !== undefined && FOLDER_CHANGERS.has(program)) {
      inTemporary = operands.some((word) => outside(temporaryPath(word.text)));
      uses.push(...(inTemporary ? (["read"] as const) : []));
      continue;
    }
    const reader = program !== undefined && (READERS.has(program) || TEXT_ARGUMENTS.has(program));
    if (inTemporary && !reader) {
      uses.push("wrote");
    }
    const paths =
      program === "mktemp"
        ? [temporaryPath(mktempFolder(operands))]
        : fileArguments(program, operands, reader);
    if (paths.some(outside)) {
      uses.push(reader ? "read" : "wrote");
    }
  }
  if (inTemporary && writesRelative(analysis)) {
    uses.push("wrote");
  }
  return uses.includes("wrote") ? "wrote" : uses[0];
}

/** The path `text` names under `/tmp` (`$TMPDIR/x` as `/tmp/x`), or `undefined`. */
function temporaryPath(text: string): string | undefined {
  const path = text.replace(TEMPORARY_VARIABLE, "/tmp");
  return path === "/tmp" || path.startsWith("/tmp/") ? path : undefined;
}

/**
 * The paths under `/tmp` among `program`'s arguments: a reader's are its operands and option
 * values that are such paths (a pattern of grep's and rg's is not one); any other program's are
 * such paths anywhere in a word (`python3 -c "open('/tmp/x', 'w')"`); text arguments' none.
 */
function fileArguments(
  program: string | undefined,
  words: readonly DecodedWord[],
  reader: boolean,
): (string | undefined)[] {
  if (program !== undefined && TEXT_ARGUMENTS.has(program)) {
    return [];
  }
  const named = (word: DecodedWord) =>
    temporaryPath(OPTION_VALUE.exec(word.text)?.[1] ?? word.text);
  if (!reader) {
    return words.flatMap((word) => [
      named(word),
      ...[...word.text.matchAll(EMBEDDED_PATH)].map(([path]) => path),
    ]);
  }
  const valueOptions = program === undefined ? undefined : PATTERN_FIRST[program];
  return (valueOptions === undefined ? words : withoutPattern(words, valueOptions)).map(named);
}

/**
 * `words` of grep or rg without the pattern: the first operand, unless an `-e`/`-f` option (or
 * `--regexp`, `--file`) gives the pattern; `valueOptions` are the short options whose value is
 * the next word when not glued to them.
 */
function withoutPattern(words: readonly DecodedWord[], valueOptions: string): DecodedWord[] {
  const texts = words.map((word) => word.text);
  const given = texts.some(
    (text) => /^--(?:regexp|file)(?:=|$)/.test(text) || /^-[A-Za-z]*[ef]/.test(text),
  );
  const operands: DecodedWord[] = [];
  let optionsEnded = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as DecodedWord;
    if (!optionsEnded && word.text === "--") {
      optionsEnded = true;
    } else if (!optionsEnded && /^-[A-Za-z]+$/.test(word.text)) {
      index += valueOptions.includes(word.text.at(-1) ?? "") ? 1 : 0;
    } else if (optionsEnded || !word.text.startsWith("-")) {
      operands.push(word);
    }
  }
  return given ? operands : operands.slice(1);
}

/**
 * Where `mktemp operands…` makes its file or folder, as far as it tells: GNU mktemp makes it in
 * `$TMPDIR` (`/tmp` in the sandbox) with no template, with `-t` or `--tmpdir`; in the folder
 * `-p`/`--tmpdir=` name; else where its template says, relative to the current folder.
 */
function mktempFolder(operands: readonly DecodedWord[]): string {
  let folder: string | undefined;
  let template: string | undefined;
  let inTemporaryFolder = false;
  for (let index = 0; index < operands.length; index++) {
    const text = operands[index]?.text ?? "";
    if (text === "--tmpdir" || /^-[A-Za-z]*t/.test(text)) {
      inTemporaryFolder = true;
    } else if (text.startsWith("--tmpdir=") || text.startsWith("-p")) {
      const glued = text.startsWith("-p") ? text.slice(2) : text.slice("--tmpdir=".length);
      folder = glued === "" ? operands[++index]?.text : glued;
    } else if (!text.startsWith("-")) {
      template = text;
    }
  }
  return folder ?? (inTemporaryFolder || template === undefined ? "/tmp" : template);
}

/** Whether `analysis` writes a file by a relative path (after `cd /tmp`, one there). */
function writesRelative(analysis: ShellAnalysis): boolean {
  return analysis.redirections.some(
    (redirection) => redirection.writes && !redirection.target.text.startsWith("/"),
  );
}
