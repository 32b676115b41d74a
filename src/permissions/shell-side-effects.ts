/**
 * What a simple command does beyond what its name says, for the permission rules (shell-commands.ts):
 * whether it writes files — through a redirection (shell-words.ts `redirectWritesFile`) or an option
 * or operand known to write one (`sort -o FILE`, `git log --output=FILE`, `curl -o`, `sed -i`,
 * `find -fprint`, `tee FILE`, `dd of=FILE`) — and whether one of its options runs a program (`tar
 * --to-command=…`, `rsync -e …`, `git -c core.pager=…`, sed's `e` command), which makes the call
 * unclear as an unread wrapper would. A command that writes files is covered only by a rule equal to it.
 */

import { gitOptionEffects, sedEffects, sedRunsCommands } from "./program-arguments.js";
import {
  goFlagEffects,
  makeRunningProgram,
  packageManagerWrites,
  readPackageRunner,
  readWrapper,
  SHELL_NAME,
  xargsInputConcern,
} from "./program-runners.js";
import type { ShellAnalysis } from "./shell-analysis.js";
import { baseName, type DecodedWord, HARMLESS_TARGETS } from "./shell-words.js";

/**
 * Long options, of any program, whose value is a program it runs (`tar --to-command=…`,
 * `sort --compress-program=…`, `rsync --rsh=…`, `git rebase --exec …`, `man --pager=…`);
 * `--no-pager` and other `--no-…` options run nothing.
 */
const RUNNING_LONG_OPTION =
  /^(?!no-)(?:[a-z-]*-)?(?:command|cmd|extcmd|exec|execute|exec-batch|exec-path|program|rsh|pager|editor|upload-pack|receive-pack|rsync-path|info-script|new-volume-script|script-shell|node-options)$/;
/**
 * Long options of {@link RUNNING_LONG_OPTION}'s kind by their full names, for their abbreviations:
 * getopt_long (GNU tar, sort, rsync; git's parse-options too) takes any unambiguous start of a long
 * option (`--to-comm=` is `--to-command=`), so a start of one of these names counts as the name.
 */
const RUNNING_NAMES = (
  "to-command use-compress-program compress-program upload-pack receive-pack rsync-path " +
  "info-script new-volume-script rsh exec execute pager editor command program unzip-command eval"
).split(" ");

/**
 * Whether `long` (an option's name without `--`, at least 2 letters) is the start of one of
 * `names`: what getopt_long and git read as that option when no other option starts so.
 */
function abbreviates(long: string, names: readonly string[]): boolean {
  return long.length >= 2 && names.some((name) => name.startsWith(long));
}

/** Short options whose value is a program the program runs (`rsync -e ssh`, `tar -I zstd`). */
const RUNNING_SHORT_OPTIONS = letterTable(
  "tar=IF rsync=e fd=xX fdfind=xX scp=SF sftp=SF man=P nc=ec ncat=ec netcat=ec nix=c vim=cS " +
    "vi=cS nvim=cS view=cS vimdiff=cS ex=cS make=EfCI gmake=EfCI zip=T compgen=CF curl=K tox=x wget=e " +
    "psql=f npm=C npx=C pnpm=C",
);
/**
 * Long options of one program whose value runs a program, or names a file of options or commands
 * that may (`npm --script-shell`, `rg --pre`, `cargo --config`, `curl --config`, `tox --override`,
 * `sqlite3 -init`, `npm --userconfig`/`--prefix` (`-C`), `yarn`/`bun --cwd`, `make -f`/`-C`: other scripts or recipes;
 * the session-18 trial; `pnpm --config.<key>=`, any setting); sqlite3's take one dash too; go's
 * are read by program-runners.ts.
 * Starts of their names count ({@link abbreviates}): npm's option reader takes them.
 */
const PROGRAM_RUNNING_LONG = letterTable(
  "npm=shell,script-shell,node-options,userconfig,globalconfig,prefix,git npx=shell,script-shell," +
    "node-options,userconfig,globalconfig,prefix " +
    "pnpm=shell,script-shell,node-options,userconfig,globalconfig,prefix,dir rg=pre " +
    "yarn=cwd,use-yarnrc bun=cwd cargo=config curl=config tox=override sqlite3=init " +
    "make=file,makefile,directory,include-dir gmake=file,makefile,directory,include-dir",
);
/** Words of a database shell that run a command or read a script (`.shell`, `\\!`, `COPY … PROGRAM`). */
const DATABASE_SHELLS = /^(?:sqlite3|duckdb|psql|mysql|mariadb)$/;
const DATABASE_ESCAPE =
  /(?:^|[\n;])\s*(?:\.(?:shell|system|read|load|import)\b|\\[!io]|system\s)|\bprogram\s*'/i;

/** `"sort=o curl=oODc"` as `{ sort: "o", curl: "oODc" }`. */
function letterTable(text: string): Readonly<Record<string, string>> {
  return Object.fromEntries(text.split(" ").map((entry) => entry.split("=")));
}
/** git configuration keys (`git -c key=…`) whose value runs a program or names a file read. */
const GIT_RUNNING_KEY =
  /(?:^|\.)(?:pager|editor|fsmonitor|hookspath|gitproxy|askpass|external|textconv|clean|smudge|process|driver|helper|program|packobjectshook|path|receivepack|uploadpack|allow|browser|update|difffilter|templatedir|vcs)$|(?:command|cmd)$|^(?:pager|include|includeif)\./i;

/**
 * Why `name tail…` runs a program through one of its options (an option of {@link
 * RUNNING_LONG_OPTION}, {@link RUNNING_SHORT_OPTIONS}, `git -c` of a key that runs one, `git
 * submodule foreach`, `git bisect run`, sed's `e` command, `less +…`), or undefined.
 */
export function optionRunningProgram(name: string, tail: readonly string[]): string | undefined {
  const end = tail.indexOf("--");
  const words = end === -1 ? tail : tail.slice(0, end);
  const short = RUNNING_SHORT_OPTIONS[name];
  const programLong = PROGRAM_RUNNING_LONG[name]?.split(",") ?? [];
  for (const [index, word] of words.entries()) {
    const long = /^--([^=]+)/.exec(word)?.[1];
    const value = word.split("=").slice(1).join("=");
    const single = name === "sqlite3" ? /^-([^-=][^=]*)/.exec(word)?.[1] : undefined;
    if (
      abbreviates(long ?? single ?? "", programLong) ||
      (DATABASE_SHELLS.test(name) && DATABASE_ESCAPE.test(word)) ||
      (/^pnpm$/.test(name) && word.startsWith("--config.")) ||
      (/^mvnw?$/.test(name) && /(?:^|:)(?:exec:|exec-maven-plugin|antrun:)/.test(word))
    ) {
      return `${name} ${word} runs a program`;
    }
    if (
      long !== undefined &&
      (RUNNING_LONG_OPTION.test(long) ||
        abbreviates(long, RUNNING_NAMES) ||
        (name === "split" && abbreviates(long, ["filter"])))
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
      : name === "go"
        ? goFlagEffects(tail).runs
        : undefined;
}

/** Why a git command runs a program: `git -c` of a key that runs one, or its subcommand's options (program-arguments.ts). */
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
  const { runs, settings } = gitOptionEffects(words);
  // A setting of a subcommand (`git clone -c`, `git config k v`) stays: an alias too runs later.
  const running = settings.find(
    (setting) => /^alias\./i.test(setting) || GIT_RUNNING_KEY.test(setting.split("=")[0] ?? ""),
  );
  return runs ?? (running === undefined ? undefined : `git sets ${running}, which runs a program`);
}

/**
 * The effects of `name tail…`'s own options on `analysis`: files written (see {@link writesFiles}),
 * programs run ({@link optionRunningProgram}, xargs's input: {@link xargsInputConcern}), which
 * make the call unclear, and the command a package runner runs ({@link readPackageRunner}), read
 * by `readScript`.
 */
export function readProgramOptions(
  name: string,
  tail: readonly DecodedWord[],
  analysis: ShellAnalysis,
  readScript: (script: string) => void,
): void {
  const words = tail.map((word) => word.text);
  analysis.writes.push(...(writesFiles(name, words) ? [[name, ...words].join(" ")] : []));
  const running =
    optionRunningProgram(name, words) ??
    makeRunningProgram(name, words) ??
    (/^g?xargs$/.test(name) ? xargsInputConcern(words) : undefined);
  if (running !== undefined) {
    analysis.unclear.push(running);
  }
  const runner = readPackageRunner(name, words);
  if (runner === undefined || runner.kind === "none") {
    return;
  }
  if (runner.kind === "unclear") {
    analysis.unclear.push(`${name}: ${runner.reason}`);
    return;
  }
  const inner = runner.kind === "command" ? tail.slice(runner.start) : tail.slice(runner.index);
  if (runner.kind === "script" && inner.some((word) => word.computed)) {
    analysis.unclear.push(`${name} runs a computed script`);
    return;
  }
  // What it runs counts for deny rules; allow rules judge the runner's call (`npx tape *`).
  const before = analysis.commands.length;
  readScript(runner.kind === "command" ? shellText(inner) : words.slice(runner.index).join(" "));
  for (const command of analysis.commands.slice(before)) {
    command.runsScript = true;
  }
}

/** Words as shell text that reads back as the same words (`it's` → `'it'\''s'`). */
function shellText(words: readonly DecodedWord[]): string {
  return words
    .map(({ text, computed, pattern }) =>
      computed || pattern || /^[\w@%+=:,./-]+$/.test(text)
        ? text
        : `'${text.replace(/'/g, "'\\''")}'`,
    )
    .join(" ");
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
    if (name === undefined || name.computed || name.pattern || name.text.includes("{}")) {
      analysis.unclear.push("find -exec of a computed command");
      continue;
    }
    const program = baseName(name.text);
    const rest = words.slice(1);
    const runsAnother =
      SHELL_NAME.test(program) ||
      readWrapper(program, rest) !== undefined ||
      readPackageRunner(
        program,
        rest.map((word) => word.text),
      ) !== undefined ||
      optionRunningProgram(
        program,
        rest.map((word) => word.text),
      ) !== undefined;
    if (runsAnother) {
      // `find -exec env touch x \;`, `-exec sh -c …`: what it runs is not this command.
      analysis.unclear.push(`find -exec ${program} runs another command`);
      continue;
    }
    const text = [program, ...rest.map((word) => word.text)].join(" ");
    analysis.commands.push({
      words: words.map((word) => word.text),
      forms: [text],
      runs: words,
      runsScript: false,
      assigns: [],
      runBy: `find ${tail[index]?.text}`,
    });
  }
}

/** Long options, of any program, whose value is a file written (`git log --output=FILE`). */
const WRITING_LONG_OPTION =
  /^(?:output|output-file|output-document|output-directory|output-dir|directory-prefix|in-place|log-file|append-output|dump-header|cookie-jar|save-cookies|trace|trace-ascii|libcurl|etag-save|remote-name|remote-name-all|log-io|log-in|log-out|log-timing|timing|error-file|auth-file|outfile|outdir|out-file|out-dir|outFile|outDir)$/;
/** {@link WRITING_LONG_OPTION}'s names, whose starts count as them ({@link abbreviates}). */
const WRITING_NAMES = WRITING_LONG_OPTION.source.slice("^(?:".length, -")$".length).split("|");
/** `--output=json` and the like choose a format, not a file. */
const OUTPUT_FORMATS =
  /^(?:json|yaml|yml|table|text|wide|name|tsv|csv|plain|-|\/dev\/std(?:out|err)|jsonpath.*|go-template.*|custom-columns.*)$/;
/** Short options whose value is a file the program writes (`sort -o out`), by program. */
const WRITING_SHORT_OPTIONS = letterTable(
  "sort=o curl=oODc wget=oaP time=o fakeroot=s xvfb-run=ef shuf=o iconv=o patch=o bugreport=o " +
    "gpg=o gpg2=o",
);
/** find's actions that write or delete files. */
const FIND_WRITING_ACTIONS = new Set(["-fprint", "-fprint0", "-fprintf", "-fls", "-delete"]);

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
    if (name === "curl" && long === "stderr") {
      return !HARMLESS_TARGETS.has(rest.join("=") || (optionWords[index + 1] ?? ""));
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
      return operands.some((word) => !HARMLESS_TARGETS.has(word));
    case "uniq":
      return operands.length > 1 && !HARMLESS_TARGETS.has(operands[1] ?? "-");
    case "dd":
      return words.some((word) => /^of=/.test(word) && !HARMLESS_TARGETS.has(word.slice(3)));
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
    case "git":
      return gitOptionEffects(words).writes;
    case "xxd":
      return operands.length > 1 && !HARMLESS_TARGETS.has(operands[1] ?? "-");
    case "split":
    case "csplit":
      return true; // Writes its pieces (`xaa`, `xx00` …) in the current folder.
    case "openssl":
      return words.some(
        (word, at) => /^-(?:out|keyout)$/.test(words[at - 1] ?? "") && !HARMLESS_TARGETS.has(word),
      );
    default:
      return toolWrites(name, words, operands) || readOnlyModes(name, words);
  }
}

/** Compilers, linkers, binary tools and `zip`: they write (`a.out`, `-o FILE`, in place). */
const BUILDING_TOOLS =
  /^(?:[\w.]+-)*(?:cc|c\+\+|gcc|g\+\+|clang|clang\+\+|tcc|rustc|ld|as|objcopy|strip|zip)(?:-[\d.]+)?$/;
/** Their modes that only print (`gcc -E`, `-fsyntax-only`, `--version`, `zip -sf`). */
const PRINTING_MODE =
  /^(?:-E|-M|-MM|-fsyntax-only|-###|--version|-V|--help|-h|-dump\w+|-print-\S+|-sf)$/;

/**
 * Whether a {@link BUILDING_TOOLS} call writes (not in a printing mode, or with `-o FILE`; their
 * names with a target or version: `x86_64-linux-gnu-gcc-12`), `cpp IN OUT` or `python3 -m
 * json.tool IN OUT` writes OUT, go's and the package managers' options name what they write
 * (program-runners.ts: `go test -coverprofile=F`, `npm test --cache DIR`).
 */
function toolWrites(name: string, words: readonly string[], operands: string[]): boolean {
  if (BUILDING_TOOLS.test(name)) {
    const output = words.some(
      (word, at) =>
        (word === "-o" && !HARMLESS_TARGETS.has(words[at + 1] ?? "-")) || /^-o[^-]/.test(word),
    );
    return output || !words.some((word) => PRINTING_MODE.test(word));
  }
  const jsonTool = /^python[\d.]*$/.test(name) && words[0] === "-m" && words[1] === "json.tool";
  const goWrites = name === "go" && goFlagEffects(words).writes;
  return (
    (name === "cpp" && operands.length > 1) ||
    (jsonTool && operands.length > 2) ||
    goWrites ||
    packageManagerWrites(name, words)
  );
}

/**
 * Programs that write by nature but have read-only spellings, whose prefix (`tar tf a.tar` →
 * `tar *`) must not cover the writing ones: `tar x`/`c`/`r`/`u` (but `c` to stdout, `x -O`),
 * `unzip` (but `-l`, `-t`, `-p`, `-v`, `-Z`), the compressors (but `-c`, `-l`, `-t`), `patch`
 * (but `--dry-run`); `git apply` is read in program-arguments.ts.
 */
function readOnlyModes(name: string, words: readonly string[]): boolean {
  const tar = /^(?:g|bsd)?tar$/.test(name);
  const letters = words
    .filter((word, at) => (tar && at === 0 && !word.startsWith("-")) || /^-[^-]/.test(word))
    .join("");
  const has = (long: RegExp, short: RegExp) =>
    words.some((word) => long.test(word)) || short.test(letters);
  switch (name) {
    case "tar":
    case "gtar":
    case "bsdtar": {
      const toStdout = has(/^--to-stdout$|^--file=-$/, /O/) || words.includes("-");
      return (
        has(/^--(?:append|update|catenate|concatenate|delete)$/, /[ruA]/) ||
        (has(/^--(?:extract|get|create)$/, /[xc]/) && !toStdout)
      );
    }
    case "unzip":
      return !has(/^-[ltpvZ]$/, /[ltpvZ]/);
    case "gzip":
    case "gunzip":
    case "bzip2":
    case "bunzip2":
    case "xz":
    case "unxz":
    case "zstd":
    case "unzstd":
    case "lz4":
      return !has(/^--(?:stdout|to-stdout|list|test)$/, /[clt]/);
    case "patch":
      return !words.includes("--dry-run");
    default:
      return false;
  }
}
