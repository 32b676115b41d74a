/**
 * What a simple command does beyond what its name says, for the permission rules
 * (shell-commands.ts): whether it writes files — through a redirection (`>`, `>>`, `&>` … to
 * anything but /dev/null and the like, `>& file`) or through an option or operand known to write
 * one (`sort -o FILE`, `git log --output=FILE`, `curl -o`, `sed -i`, `find -fprint`, `tee FILE`,
 * `dd of=FILE`) — and whether one of its options runs a program (`tar --to-command=…`, `rsync
 * -e …`, `git -c core.pager=…`, sed's `e` command), which makes the call unclear as an unread
 * wrapper would. A prefix rule therefore never covers `git log --output=x` through
 * `bash(git log *)`: a command that writes files is covered only by a rule equal to it.
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import { sedEffects, sedRunsCommands } from "./program-arguments.js";
import type { ShellAnalysis } from "./shell-commands.js";
import { baseName, type DecodedWord, decodeWord } from "./shell-words.js";

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

/**
 * Long options, of any program, whose value is a program it runs (`tar --to-command=…`,
 * `sort --compress-program=…`, `rsync --rsh=…`, `git rebase --exec …`, `man --pager=…`);
 * `--no-pager` and other `--no-…` options run nothing.
 */
const RUNNING_LONG_OPTION =
  /^(?!no-)(?:[a-z-]*-)?(?:command|cmd|extcmd|exec|execute|exec-batch|exec-path|program|rsh|pager|editor|upload-pack|receive-pack|rsync-path|info-script|new-volume-script)$/;
/**
 * Long options of {@link RUNNING_LONG_OPTION}'s kind by their full names, for their abbreviations:
 * getopt_long (GNU tar, sort, rsync; git's parse-options too) takes any unambiguous start of a long
 * option (`--to-comm=` is `--to-command=`), so a start of one of these names counts as the name.
 */
const RUNNING_NAMES = [
  "to-command",
  "use-compress-program",
  "compress-program",
  "upload-pack",
  "receive-pack",
  "rsync-path",
  "info-script",
  "new-volume-script",
  "rsh",
  "exec",
  "execute",
  "pager",
  "editor",
  "command",
  "program",
];

/**
 * Whether `long` (an option's name without `--`, at least 2 letters) is the start of one of
 * `names`: what getopt_long and git read as that option when no other option starts so.
 */
function abbreviates(long: string, names: readonly string[]): boolean {
  return long.length >= 2 && names.some((name) => name.startsWith(long));
}

/** Short options whose value is a program the program runs (`rsync -e ssh`, `tar -I zstd`). */
const RUNNING_SHORT_OPTIONS: Record<string, string> = {
  tar: "IF",
  rsync: "e",
  fd: "xX",
  fdfind: "xX",
  scp: "SF",
  sftp: "SF",
  man: "P",
  nc: "ec",
  ncat: "ec",
  netcat: "ec",
  nix: "c",
  vim: "cS",
  vi: "cS",
  nvim: "cS",
  view: "cS",
  vimdiff: "cS",
  ex: "cS",
};
/** git configuration keys (`git -c key=…`) whose value runs a program or names a file read. */
const GIT_RUNNING_KEY =
  /(?:^|\.)(?:pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass|external|textconv|command|cmd|clean|smudge|process|driver|helper|program|packobjectshook|path|receivepack|uploadpack|allow|browser|proxycommand)$|^(?:pager|include|includeif)\./i;

/**
 * Why `name tail…` runs a program through one of its options (an option of {@link
 * RUNNING_LONG_OPTION}, {@link RUNNING_SHORT_OPTIONS}, `git -c` of a key that runs one, `git
 * submodule foreach`, `git bisect run`, sed's `e` command, `less +…`), or undefined.
 */
export function optionRunningProgram(name: string, tail: readonly string[]): string | undefined {
  const end = tail.indexOf("--");
  const words = end === -1 ? tail : tail.slice(0, end);
  const short = RUNNING_SHORT_OPTIONS[name];
  for (const [index, word] of words.entries()) {
    const long = /^--([^=]+)/.exec(word)?.[1];
    const value = word.split("=").slice(1).join("=");
    if (
      long !== undefined &&
      (RUNNING_LONG_OPTION.test(long) || abbreviates(long, RUNNING_NAMES))
    ) {
      return `${name} ${word} runs a program`;
    }
    const checkpoint = long !== undefined && abbreviates(long, ["checkpoint-action"]);
    if (checkpoint && /^exec/.test(value || (words[index + 1] ?? ""))) {
      return `${name} ${word} runs a program`;
    }
    if (short !== undefined && /^-[^-]/.test(word) && [...short].some((c) => word.includes(c))) {
      return `${name} ${word} runs a program`;
    }
    if ((name === "less" || name === "more" || short === "cS") && word.startsWith("+")) {
      return `${name} ${word} runs a command`;
    }
  }
  return name === "git"
    ? gitRunningProgram(words)
    : name === "sed"
      ? sedRunsCommands(words)
      : undefined;
}

function gitRunningProgram(words: readonly string[]): string | undefined {
  for (const [index, word] of words.entries()) {
    const next = words[index + 1] ?? "";
    if (
      word === "-c" &&
      !/^alias\./i.test(next) &&
      GIT_RUNNING_KEY.test(next.split("=")[0] ?? "")
    ) {
      return `git -c ${next} runs a program`;
    }
  }
  const joined = ` ${words.join(" ")} `;
  if (
    / submodule .*\bforeach | bisect run | filter-branch | rebase (?:.* )?-[a-zA-Z]*x/.test(joined)
  ) {
    return "git runs a command given in its arguments";
  }
  return undefined;
}

/**
 * The effects of `name tail…`'s own options on `analysis`: files written (shell-writes.ts) and
 * programs run ({@link optionRunningProgram}), which make the call unclear.
 */
export function readProgramOptions(
  name: string,
  tail: readonly DecodedWord[],
  analysis: ShellAnalysis,
): void {
  const words = tail.map((word) => word.text);
  analysis.writesFiles ||= writesFiles(name, words);
  const running = optionRunningProgram(name, words);
  if (running !== undefined) {
    analysis.unclear.push(running);
  }
}

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

/** Long options, of any program, whose value is a file written (`git log --output=FILE`). */
const WRITING_LONG_OPTION =
  /^(?:output|output-file|output-document|output-directory|output-dir|directory-prefix|in-place|log-file|append-output|dump-header|cookie-jar|save-cookies|trace|trace-ascii|libcurl|etag-save|remote-name|remote-name-all|log-io|log-in|log-out|log-timing|timing|error-file|auth-file)$/;
/** {@link WRITING_LONG_OPTION}'s names, whose starts count as them ({@link abbreviates}). */
const WRITING_NAMES = WRITING_LONG_OPTION.source.slice("^(?:".length, -")$".length).split("|");
/** `--output=json` and the like choose a format, not a file. */
const OUTPUT_FORMATS =
  /^(?:json|yaml|yml|table|text|wide|name|tsv|csv|plain|-|\/dev\/std(?:out|err)|jsonpath.*|go-template.*|custom-columns.*)$/;
/** Short options whose value is a file the program writes (`sort -o out`), by program. */
const WRITING_SHORT_OPTIONS: Record<string, string> = {
  sort: "o",
  curl: "oODc",
  wget: "oaP",
  time: "o",
  fakeroot: "s",
  "xvfb-run": "ef",
};
/** find's actions that write or delete files. */
const FIND_WRITING_ACTIONS = new Set(["-fprint", "-fprint0", "-fprintf", "-fls", "-delete"]);
const HARMLESS_FILES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"]);

/** Whether `name words…` writes files through its options or operands (see the file comment). */
export function writesFiles(name: string, words: readonly string[]): boolean {
  const end = words.indexOf("--");
  const optionWords = end === -1 ? words : words.slice(0, end);
  const short = WRITING_SHORT_OPTIONS[name] ?? "";
  const writingOption = optionWords.some((word, index) => {
    const [long, ...rest] = word.startsWith("--") ? word.slice(2).split("=") : [];
    if (
      long !== undefined &&
      (WRITING_LONG_OPTION.test(long) || abbreviates(long, WRITING_NAMES))
    ) {
      const value = rest.length > 0 ? rest.join("=") : (optionWords[index + 1] ?? "");
      return !(abbreviates(long, ["output"]) && OUTPUT_FORMATS.test(value));
    }
    return /^-[^-]/.test(word) && [...short].some((letter) => word.includes(letter));
  });
  const operands = [
    ...optionWords.filter((word) => !word.startsWith("-")),
    ...(end === -1 ? [] : words.slice(end + 1)),
  ];
  return writingOption || writesByOperands(name, words, operands);
}

function writesByOperands(name: string, words: readonly string[], operands: string[]): boolean {
  switch (name) {
    case "tee":
    case "sponge":
      return operands.some((word) => !HARMLESS_FILES.has(word));
    case "uniq":
      return operands.length > 1 && !HARMLESS_FILES.has(operands[1] ?? "-");
    case "dd":
      return words.some((word) => /^of=/.test(word) && !HARMLESS_FILES.has(word.slice(3)));
    case "find":
    case "gfind":
    case "bfs":
      return words.some((word) => FIND_WRITING_ACTIONS.has(word));
    case "wget":
      return !/(?:^| )(?:-[a-zA-Z]*O ?-|--output-document=?-|--spider)(?: |$)/.test(
        words.join(" "),
      );
    case "script":
      return words.at(-1) !== "/dev/null";
    case "sed":
      return sedEffects(words).writes;
    default:
      return false;
  }
}
