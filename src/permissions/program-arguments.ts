/**
 * How git and sed read their own arguments, for the permission rules (shell-commands.ts and
 * shell-side-effects.ts): what they run or write beyond what their names say.
 *
 * git's aliases it defines for itself (trial finding 8): `git -c alias.p=push p …` runs `git push
 * …`, and `git -c alias.x='!rm victim' x` runs the shell command `rm victim`. Read from git's
 * global options before its subcommand (git(1)); aliases defined in config files (`git config
 * alias.p push`) cannot be seen in the command's text.
 *
 * sed's script (`-e`, `--expression`, the first operand): whether it writes files (`w`, `W`,
 * `s///w`, `-i`) or runs commands (`e`, `s///e`, a script read from a file with `-f`).
 */

import type { DecodedWord } from "./shell-words.js";

/** What a git command runs through its own aliases. */
export type GitAliasResult =
  /** No alias of its own is used: the command is read as written. */
  | { kind: "none" }
  /** Runs git with these words (`git push bare …`), the alias definitions removed. */
  | { kind: "command"; words: DecodedWord[] }
  /** Runs this shell script (a `!` alias, with the remaining arguments appended). */
  | { kind: "script"; script: string }
  | { kind: "unclear"; reason: string };

/** git's global options whose value is the next word. */
const OPTIONS_WITH_VALUE = new Set(["-C", "--git-dir", "--work-tree", "--namespace"]);
/** Expansions followed, as git follows an alias naming another (`alias.a=b`, `alias.b=…`). */
const MAX_EXPANSIONS = 8;

/** Reads `git <tail…>` (see the file comment). */
export function gitAlias(tail: readonly DecodedWord[]): GitAliasResult {
  const aliases = new Map<string, string>();
  const kept: DecodedWord[] = [];
  let index = 0;
  for (; index < tail.length; index++) {
    const word = tail[index];
    if (word === undefined || !word.text.startsWith("-")) {
      break;
    }
    if (/^--config-env(?:=|$)/.test(word.text)) {
      const definition = word.text.includes("=") ? word.text : tail[index + 1]?.text;
      if (/^(?:--config-env=)?alias\./i.test(definition ?? "alias.")) {
        return {
          kind: "unclear",
          reason: "git --config-env of an alias (its value is not in the text)",
        };
      }
    }
    const value = word.text === "-c" ? tail[index + 1] : undefined;
    const alias = value === undefined ? null : /^alias\.([^=]+)=(.*)$/is.exec(value.text);
    if (value?.computed === true && /^alias\./i.test(value.text)) {
      return { kind: "unclear", reason: "git -c alias with a computed value" };
    }
    if (alias !== null) {
      aliases.set((alias[1] ?? "").toLowerCase(), alias[2] ?? "");
      index++;
      continue;
    }
    kept.push(word);
    if (OPTIONS_WITH_VALUE.has(word.text) || word.text === "-c" || word.text === "--config-env") {
      const next = tail[++index];
      if (next !== undefined) {
        kept.push(next);
      }
    }
  }
  return aliases.size === 0 ? { kind: "none" } : expand(aliases, kept, tail.slice(index));
}

/** Follows the aliases from the subcommand `rest[0]`. */
function expand(
  aliases: ReadonlyMap<string, string>,
  options: DecodedWord[],
  rest: readonly DecodedWord[],
): GitAliasResult {
  let words = [...rest];
  for (let expansions = 0; expansions < MAX_EXPANSIONS; expansions++) {
    const name = words[0];
    if (name === undefined) {
      return { kind: "none" };
    }
    const value = aliases.get(name.text.toLowerCase());
    if (name.computed) {
      return { kind: "unclear", reason: `git subcommand computed when it runs (${name.text})` };
    }
    if (value === undefined) {
      return { kind: "command", words: [plain("git"), ...options, ...words] };
    }
    const tailText = words.slice(1).map((word) => word.text);
    if (value.startsWith("!")) {
      return { kind: "script", script: [value.slice(1), ...tailText].join(" ") };
    }
    if (/['"\\]/.test(value)) {
      return { kind: "unclear", reason: `git alias with quotes (${value})` };
    }
    words = [
      ...value
        .split(/\s+/)
        .filter((part) => part !== "")
        .map(plain),
      ...words.slice(1),
    ];
  }
  return { kind: "unclear", reason: "git aliases nested too deeply to follow" };
}

function plain(text: string): DecodedWord {
  return { text, computed: false, pattern: false, quoted: false };
}

/** sed's scripts (`-e`, `--expression`, or the first operand) and whether `-f` reads one. */
function sedScripts(words: readonly string[]): {
  scripts: string[];
  fromFile: boolean;
  inPlace: boolean;
  sandbox: boolean;
} {
  const found = { scripts: [] as string[], fromFile: false, inPlace: false, sandbox: false };
  let operand = true;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? "";
    if (word === "--") {
      break;
    }
    if (word.startsWith("--")) {
      const [long = "", value] = word.slice(2).split(/=(.*)/s, 2);
      found.inPlace ||= long === "in-place";
      found.sandbox ||= long === "sandbox";
      found.fromFile ||= long === "file";
      operand &&= long !== "file";
      if (long === "expression") {
        found.scripts.push(value ?? words[++index] ?? "");
        operand = false;
      }
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      index += readSedShortOptions(word, words[index + 1], found);
      operand &&= found.scripts.length === 0 && !found.fromFile;
      continue;
    }
    if (operand) {
      found.scripts.push(word);
      operand = false;
    }
  }
  return found;
}

/** Reads one word of sed's short options (`-n`, `-i.bak`, `-ne 's/a/b/'`); gives 1 when the next word is a value. */
function readSedShortOptions(
  word: string,
  next: string | undefined,
  found: { scripts: string[]; fromFile: boolean; inPlace: boolean },
): number {
  for (let at = 1; at < word.length; at++) {
    const letter = word[at];
    const rest = word.slice(at + 1);
    if (letter === "i") {
      found.inPlace = true;
      return 0; // The rest is the backup suffix.
    }
    if (letter === "e" || letter === "f" || letter === "l") {
      const value = rest !== "" ? rest : (next ?? "");
      if (letter === "e") {
        found.scripts.push(value);
      }
      found.fromFile ||= letter === "f";
      return rest === "" ? 1 : 0;
    }
  }
  return 0;
}

/** Whether sed's scripts write files (`w`, `W`, `s///w`) or run commands (`e`, `s///e`). */
export function sedEffects(words: readonly string[]): { writes: boolean; runs: boolean } {
  const { scripts, fromFile, inPlace, sandbox } = sedScripts(words);
  const commands = scripts.flatMap((script) => script.split(/[;\n]/));
  const effects = { writes: inPlace, runs: fromFile };
  for (const command of commands) {
    // The command's letter after its address (`1`, `$`, `/re/`, `1,3`, `!`, `{`).
    const body = command.replace(
      /^[\s{}!]*(?:(?:\d+|\$|\/(?:[^/\\]|\\.)*\/[IM]*|\\(.)(?:(?!\1).)*\1)[\s,~+!]*)*[\s{}!]*/s,
      "",
    );
    const letter = body[0] ?? "";
    const flags = letter === "s" ? sedSubstituteFlags(body) : "";
    effects.writes ||= /[wW]/.test(letter) || flags.includes("w");
    effects.runs ||= letter === "e" || flags.includes("e");
  }
  return sandbox ? { writes: inPlace, runs: false } : effects;
}

/** The flags of `s/re/replacement/flags` (any delimiter). */
function sedSubstituteFlags(command: string): string {
  const delimiter = command[1];
  if (delimiter === undefined) {
    return "";
  }
  let seen = 0;
  for (let at = 2; at < command.length; at++) {
    if (command[at] === "\\") {
      at++;
    } else if (command[at] === delimiter && ++seen === 2) {
      return command.slice(at + 1);
    }
  }
  return "";
}

/** Why sed runs a command (its `e` command, or a script read from a file), or undefined. */
export function sedRunsCommands(words: readonly string[]): string | undefined {
  return sedEffects(words).runs ? "sed runs commands (e) or a script file" : undefined;
}
