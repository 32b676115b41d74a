/**
 * How git and sed read their own arguments, for the permission rules (shell-commands.ts and
 * shell-side-effects.ts): what they run or write beyond what their names say.
 *
 * git's aliases it defines for itself (trial finding 8): `git -c alias.p=push p …` runs `git push
 * …`, and `git -c alias.x='!rm victim' x` runs the shell command `rm victim`. Read from git's
 * global options before its subcommand (git(1)); aliases defined in config files (`git config
 * alias.p push`) cannot be seen in the command's text.
 *
 * git's subcommands' options that run a program (`git clone -u <cmd>`, `git difftool -x <cmd>`,
 * `git grep -O<cmd>`, `git rebase --exec`), write a file (`git archive -o`, `git format-patch`,
 * `git bundle create`, `git config --file`, `git apply` but `--check`) or set configuration (`git clone -c key=value`,
 * `git config key value`), read as git's parse-options reads them: short options bundled
 * (`-qu<cmd>`) with a value joined or in the next word, and any start of a long option's name
 * (`--upload-pac=` is `--upload-pack=`).
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
function gitAlias(tail: readonly DecodedWord[]): GitAliasResult {
  const aliases = new Map<string, string>();
  const kept: DecodedWord[] = [];
  let index = 0;
  for (; index < tail.length; index++) {
    const word = tail[index];
    if (word === undefined || !word.text.startsWith("-")) {
      break;
    }
    if (/^--config-env(?:=|$)/.test(word.text)) {
      // Any key: its value (an alias, `core.fsmonitor`, `diff.external` …) is in a variable.
      const definition = word.text.includes("=")
        ? word.text
        : `${word.text} ${tail[index + 1]?.text ?? ""}`;
      return {
        kind: "unclear",
        reason: `git ${definition} takes a setting from the environment (its value is not in the text)`,
      };
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

/**
 * What `git <tail…>` runs through its own aliases: the words of the git command it runs, or
 * undefined when it runs none of its own aliases, a `!` alias's script, given to `readScript`,
 * or one that cannot be read (why goes to `unclear`).
 */
export function readGitAlias(
  tail: readonly DecodedWord[],
  unclear: string[],
  readScript: (script: string) => void,
): DecodedWord[] | undefined {
  const alias = gitAlias(tail);
  if (alias.kind === "script") {
    readScript(alias.script);
  } else if (alias.kind === "unclear") {
    unclear.push(alias.reason);
  }
  return alias.kind === "command" ? alias.words : undefined;
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

/**
 * Options of git's subcommands, from `git <subcommand> -h` and their manual pages (git 2.39): `!`
 * runs a program given as its value (or, for `--template`, the hooks of the folder given), `>`
 * writes the file or folder given, `@` sets a configuration `key=value`, `:` takes a value (a
 * bundle of short options such as `-bmain` ends there).
 */
const GIT_SUBCOMMAND_OPTIONS: Record<string, string> = {
  clone:
    "-u! --upload-pack! --template! -c@ --config@ --separate-git-dir> -b: -o: -j: --branch: " +
    "--origin: --reference: --depth:",
  init: "--template! --separate-git-dir>",
  fetch: "--upload-pack! -o: -j:",
  pull: "--upload-pack! -o: -j: -s: -X:",
  "ls-remote": "--upload-pack! --exec! -o:",
  "fetch-pack": "--upload-pack! --exec!",
  push: "--receive-pack! --exec! -o:",
  "send-pack": "--receive-pack! --exec!",
  archive: "--exec! -o> --output>",
  difftool: "-x! --extcmd! -t:",
  grep: "-O! --open-files-in-pager! -e: -f: -A: -B: -C: -m:",
  rebase: "-x! --exec! -s: -X: -C:",
  "send-email": "--sendmail-cmd! --smtp-server! --to-cmd! --cc-cmd! --header-cmd!",
  instaweb: "-d! --httpd! -b! --browser!",
  "web--browse": "-b! --browser! -t! --tool! -c! --config!",
  daemon: "--access-hook!",
  "format-patch": "-o> --output-directory> -v:",
  bugreport: "-o> --output-directory> -s:",
  diagnose: "-o> --output-directory> -s:",
  "fast-export": "--export-marks>",
  "fast-import": "--export-marks>",
  "read-tree": "--index-output>",
  config: "-f> --file>",
};

/** git's global options (git(1)) whose value is the next word. */
export const GLOBAL_OPTIONS_WITH_VALUE =
  /^(?:-C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix)$/;
const HARMLESS_OUTPUTS = new Set(["-", "/dev/null", "/dev/stdout", "/dev/stderr"]);

/** What a git command's subcommand options do (see the file comment). */
export interface GitOptionEffects {
  /** Why it runs a program its arguments name, or undefined. */
  runs: string | undefined;
  /** Whether it writes a file or folder its arguments name. */
  writes: boolean;
  /** The `key=value` (or `key value`) settings it makes: `git clone -c`, `git config k v`. */
  settings: string[];
}

/** Reads `git <all…>` for its subcommand's options (those before any `--`). */
export function gitOptionEffects(all: readonly string[]): GitOptionEffects {
  const end = all.indexOf("--");
  const words = end === -1 ? all : all.slice(0, end);
  let at = 0;
  while (at < words.length && (words[at] ?? "").startsWith("-")) {
    at += GLOBAL_OPTIONS_WITH_VALUE.test(words[at] ?? "") ? 2 : 1;
  }
  const subcommand = words[at] ?? "";
  const rest = words.slice(at + 1);
  const effects: GitOptionEffects = { runs: undefined, writes: false, settings: [] };
  const spec = GIT_SUBCOMMAND_OPTIONS[subcommand];
  if (spec !== undefined) {
    readSubcommandOptions(`git ${subcommand}`, spec, rest, effects);
  }
  const operands = rest.filter((word) => !word.startsWith("-"));
  if (
    subcommand === "filter-branch" ||
    (subcommand === "bisect" && operands[0] === "run") ||
    (subcommand === "submodule" && operands.includes("foreach"))
  ) {
    effects.runs ??= `git ${subcommand} runs a command given in its arguments`;
  }
  effects.writes ||=
    (subcommand === "format-patch" && !rest.some((word) => startsLong(word, "stdout", 3))) ||
    (subcommand === "bundle" && operands[0] === "create") ||
    (subcommand === "apply" &&
      !rest.some((word) => /^--(?:check|stat|numstat|summary)$/.test(word)));
  if (subcommand === "config") {
    readConfigSetting(rest, effects);
  }
  return effects;
}

/** Whether `word` is `--name` or a start of it of at least `shortest` letters (`--stdo`). */
function startsLong(word: string, name: string, shortest: number): boolean {
  const given = /^--([^=]+)/.exec(word)?.[1] ?? "";
  return given.length >= shortest && name.startsWith(given);
}

function readSubcommandOptions(
  command: string,
  spec: string,
  words: readonly string[],
  effects: GitOptionEffects,
): void {
  const kinds = new Map(spec.split(" ").map((token) => [token.slice(0, -1), token.slice(-1)]));
  const longNames = [...kinds.keys()].filter((option) => option.startsWith("--"));
  for (const [index, word] of words.entries()) {
    const next = words[index + 1] ?? "";
    if (word.startsWith("--") && !word.startsWith("--no-")) {
      // parse-options takes any start of a long option's name; an ambiguous one is refused.
      const [given = "", value] = word.split(/=(.*)/s, 2);
      for (const name of longNames.filter((option) => option.startsWith(given))) {
        applyOption(command, word, kinds.get(name), value ?? next, effects);
      }
    } else if (/^-[^-]/.test(word)) {
      for (let at = 1; at < word.length; at++) {
        const kind = kinds.get(`-${word[at]}`);
        applyOption(command, word, kind, word.slice(at + 1) || next, effects);
        if (kind !== undefined) {
          break; // The rest of the word, or the next word, is its value.
        }
      }
    }
  }
}

function applyOption(
  command: string,
  word: string,
  kind: string | undefined,
  value: string,
  effects: GitOptionEffects,
): void {
  if (kind === "!") {
    effects.runs ??= `${command} ${word} runs a program`;
  } else if (kind === ">") {
    effects.writes ||= !HARMLESS_OUTPUTS.has(value);
  } else if (kind === "@") {
    effects.settings.push(value);
  }
}

/** `git config`'s options whose value is the next word (`-f file`, `--type bool`). */
const CONFIG_OPTIONS_WITH_VALUE = /^(?:-f|--file|--blob|--type|--default|--comment)$/;

/** `git config [--file f] key value` (and `--add`, `--unset`, `set` …) changes a setting. */
function readConfigSetting(words: readonly string[], effects: GitOptionEffects): void {
  const operands = words.filter(
    (word, index) =>
      !word.startsWith("-") && !CONFIG_OPTIONS_WITH_VALUE.test(words[index - 1] ?? ""),
  );
  const changing = words.some((word) =>
    /^--(?:add|replace-all|unset|unset-all|rename-section|remove-section|edit)$|^-e$/.test(word),
  );
  const [first = "", second] = operands;
  const action = /^(?:get|list|get-regexp|get-urlmatch|get-color|get-colorbool)$/.test(first);
  const setting = /^(?:set|unset)$/.test(first) ? operands.slice(1) : operands;
  if (!changing && (action || second === undefined) && !/^(?:set|unset|edit)$/.test(first)) {
    effects.writes = false; // `--file` of a read.
    return;
  }
  if (setting[0] !== undefined && setting[1] !== undefined) {
    effects.settings.push(`${setting[0]}=${setting[1]}`);
  }
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
