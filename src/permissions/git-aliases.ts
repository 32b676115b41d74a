/**
 * Aliases a git command defines for itself (trial finding 8): `git -c alias.p=push p …` runs
 * `git push …`, and `git -c alias.x='!rm victim' x` runs the shell command `rm victim`. Read from
 * git's global options before its subcommand (git(1)); aliases defined in config files (`git
 * config alias.p push`) cannot be seen in the command's text.
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
