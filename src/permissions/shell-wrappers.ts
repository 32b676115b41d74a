/**
 * Commands that run another command given as their arguments (`sudo rm x` runs `rm x`), with
 * the options each takes, so shell-commands.ts can find the command that finally runs. Option
 * lists follow each tool's manual page (GNU coreutils for env, nice, nohup, timeout, stdbuf,
 * time; sudo(8); bash's builtins `command`, `builtin`, `exec`). An option a wrapper does not list
 * makes the call unclear rather than guessed.
 */

import type { ShellAnalysis } from "./shell-commands.js";
import { baseName, type DecodedWord } from "./shell-words.js";

/** Where the wrapped command is, among the words after the wrapper's name. */
export type WrapperResult =
  /** The command starts at word `start`. */
  | { kind: "command"; start: number }
  /** Word `index` is a shell script (`su -c script`, `env -S string`). */
  | { kind: "script"; index: number }
  /** Runs nothing (e.g. `env` alone prints the environment). */
  | { kind: "none" }
  | { kind: "unclear"; reason: string };

/** Reads a wrapper's arguments (the words after its name, unquoted). */
export type Wrapper = (words: readonly string[]) => WrapperResult;

interface OptionSpec {
  /** Short options without a value, e.g. `"pvV"`. */
  flags: string;
  /** Short options that take a value (`-u root`, `-uroot`). */
  valued?: string;
  /** Long options without a value (without `--`). */
  longFlags?: readonly string[];
  /** Long options with a value (`--user=root`, `--user root`). */
  longValued?: readonly string[];
  /** A short or long option whose value is a shell script. */
  script?: readonly string[];
  /** Positional words before the command (`timeout 5 cmd`: 1). */
  positionals?: number;
  /** Skips `NAME=value` words before the command (env). */
  assignments?: boolean;
  /** Words like `-10` are options (nice). */
  numericFlags?: boolean;
}

/** Reads options as `spec` describes; `--` ends them. */
function options(spec: OptionSpec): Wrapper {
  return (words) => {
    let index = 0;
    let positionals = spec.positionals ?? 0;
    while (index < words.length) {
      const word = words[index] ?? "";
      if (word === "--") {
        index++;
        break;
      }
      if (word.startsWith("--")) {
        const [name = "", value] = word.slice(2).split(/=(.*)/s, 2);
        if (spec.script?.includes(`--${name}`)) {
          return value === undefined ? { kind: "script", index: index + 1 } : unclear(word);
        }
        if (spec.longValued?.includes(name)) {
          index += value === undefined ? 2 : 1;
          continue;
        }
        if (spec.longFlags?.includes(name)) {
          index++;
          continue;
        }
        return unclear(word);
      }
      if (word.startsWith("-") && word.length > 1) {
        if (spec.numericFlags === true && /^-\d+$/.test(word)) {
          index++;
          continue;
        }
        const short = readShortOptions(word, spec);
        if (short.kind === "unclear") {
          return short;
        }
        if (short.kind === "script") {
          return { kind: "script", index: index + 1 };
        }
        index += short.consumed;
        continue;
      }
      if (spec.assignments === true && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
        index++;
        continue;
      }
      if (positionals > 0) {
        positionals--;
        index++;
        continue;
      }
      break;
    }
    return index < words.length ? { kind: "command", start: index } : { kind: "none" };
  };
}

function readShortOptions(
  word: string,
  spec: OptionSpec,
): { kind: "ok"; consumed: number } | { kind: "script" } | { kind: "unclear"; reason: string } {
  for (let at = 1; at < word.length; at++) {
    const option = word[at] ?? "";
    if (spec.script?.includes(`-${option}`)) {
      return at === word.length - 1 ? { kind: "script" } : unclear(word);
    }
    if (spec.valued?.includes(option)) {
      // The value is the rest of this word, or the next word.
      return { kind: "ok", consumed: at === word.length - 1 ? 2 : 1 };
    }
    if (!spec.flags.includes(option)) {
      return unclear(word);
    }
  }
  return { kind: "ok", consumed: 1 };
}

function unclear(word: string): { kind: "unclear"; reason: string } {
  return { kind: "unclear", reason: `option ${word} is not understood` };
}

/** Wrappers by command name. */
export const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ["command", options({ flags: "pvV" })],
  ["builtin", options({ flags: "" })],
  ["exec", options({ flags: "cl", valued: "a" })],
  ["nohup", options({ flags: "" })],
  ["setsid", options({ flags: "cfw", longFlags: ["ctty", "fork", "wait"] })],
  [
    "env",
    options({
      flags: "i0v",
      valued: "uCP",
      longFlags: ["ignore-environment", "null", "debug"],
      longValued: ["unset", "chdir"],
      script: ["-S", "--split-string"],
      assignments: true,
    }),
  ],
  [
    "sudo",
    options({
      flags: "AbEHiKknPSsV",
      valued: "ughpCDrtUTR",
      longFlags: [
        "askpass",
        "background",
        "preserve-env",
        "set-home",
        "login",
        "reset-timestamp",
        "remove-timestamp",
        "non-interactive",
        "preserve-groups",
        "stdin",
        "shell",
      ],
      longValued: ["user", "group", "host", "prompt", "close-from", "chdir", "role", "type"],
      assignments: true,
    }),
  ],
  ["doas", options({ flags: "ns", valued: "uC" })],
  [
    "time",
    options({
      flags: "pvaq",
      valued: "fo",
      longFlags: ["portability", "verbose", "append", "quiet"],
      longValued: ["format", "output"],
    }),
  ],
  ["nice", options({ flags: "", valued: "n", longValued: ["adjustment"], numericFlags: true })],
  [
    "timeout",
    options({
      flags: "v",
      valued: "sk",
      longFlags: ["foreground", "preserve-status", "verbose"],
      longValued: ["signal", "kill-after"],
      positionals: 1,
    }),
  ],
  ["stdbuf", options({ flags: "", valued: "ioe", longValued: ["input", "output", "error"] })],
  ["ionice", options({ flags: "t", valued: "cn", longValued: ["class", "classdata"] })],
  [
    "xargs",
    options({
      flags: "0rtpxo",
      valued: "adEILnPs",
      longFlags: ["null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty"],
      longValued: [
        "arg-file",
        "delimiter",
        "max-lines",
        "max-args",
        "max-procs",
        "max-chars",
        "replace",
      ],
    }),
  ],
  ["busybox", options({ flags: "" })],
  [
    "su",
    options({
      flags: "lmpf",
      valued: "sgG",
      longFlags: ["login", "preserve-environment", "pty"],
      longValued: ["shell", "group", "supp-group", "whitelist-environment"],
      script: ["-c", "--command"],
      positionals: 1,
    }),
  ],
]);

/** `find … -exec cmd … ;` (and `-execdir`, `-ok`, `-okdir`) runs `cmd` for each file. */
export function readFindExec(tail: DecodedWord[], analysis: ShellAnalysis): void {
  for (let index = 0; index < tail.length; index++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(tail[index]?.text ?? "")) {
      continue;
    }
    const end = tail.findIndex(
      (word, at) => at > index && (word.text === ";" || word.text === "+"),
    );
    const words = tail.slice(index + 1, end === -1 ? undefined : end);
    const name = words[0];
    if (name === undefined || name.computed || name.pattern) {
      analysis.unclear.push("find -exec of a computed command");
      continue;
    }
    const text = [baseName(name.text), ...words.slice(1).map((word) => word.text)].join(" ");
    analysis.commands.push({
      words: words.map((word) => word.text),
      forms: [text],
      runs: words,
      runsScript: false,
      assigns: [],
    });
  }
}
