/**
 * The "always for this command prefix" choice of a permission question (issue 24 item 1): from a
 * bash command, the narrowest useful pattern that also covers the same command with other
 * arguments (`npx tape test/a.js` → `npx tape *`).
 *
 * The rule: the first simple command the text runs (as shell-commands.ts reads it), its name
 * without a path, then at most {@link MAX_SUBCOMMAND_WORDS} following words while each looks
 * like a subcommand: written without quotes, escapes or expansions, starting with a letter, and
 * made only of letters, digits, `_`, `-`, `:` and `+` (so `run`, `compose`, `test:unit`). The
 * first word that looks like a flag (`-rf`), a path (`test/a.js`, `x.txt`), a glob, an
 * assignment (`A=b`) or a quoted value ends the prefix. No prefix is offered for a command that
 * cannot be fully read, that writes files (`>`, `sort -o f`) or whose first command sets a
 * variable (`CI=1 npm test`; rules never cover those but by their exact text, so the grant would
 * not cover this very call), nor for one run through a wrapper or another program that runs
 * its arguments as a command (`sudo rm x`, `timeout 5 npm test`, `watch git status`, `flock f
 * cmd`: shell-wrappers.ts): rules match the command that finally runs, so its prefix would also
 * cover it without the wrapper the user saw, and the wrapper's own prefix (`watch *`) would cover
 * any command. A program whose options write a file (`git log --output=x`) or run a program is
 * not offered one either (shell-side-effects.ts). An interpreter's prefix keeps its script or
 * module (`node scripts/x.js *`, `python3 -m pytest *`: `node *` would allow `node -e …`), a
 * container runner gets none (`docker run *` allows any command), and a package runner's is its
 * words as written and the prefix of what it runs (`npx eslint --version` → `npx eslint *`). A
 * program with subcommands called with an option first (`git -C . status`) gets none: its prefix
 * would be the bare program (`git *`). Programs that run commands from their input or files
 * (database shells, editors, `cmake`, `mvn`, `compgen`) get none; `make` keeps its target and `go
 * run` its package (`make test *`, `go run ./cmd/x *`), as an interpreter keeps its script; a
 * program run by its path keeps the path as written (`./x.sh *`) but in the system's folders.
 *
 * The prefix is about one simple command: the other parts of a compound command
 * (`npx tape x | tail -5`) are not covered by it and still need their own rule, as the rules
 * require of every simple command (permission-rules.ts, `rulesCover`).
 */

import { commandMatches } from "./permission-rules.js";
import { readPackageRunner, SHELL_NAME } from "./program-runners.js";
import type { ShellCommand } from "./shell-analysis.js";
import { analyseShellCommand, baseName } from "./shell-commands.js";
import type { DecodedWord } from "./shell-words.js";
import type { WrapperResult } from "./shell-wrappers.js";
import { COMMAND_RUNNERS, WRAPPERS } from "./shell-wrappers.js";

/** Words after the command's name that a prefix may keep (`docker compose up *`). */
export const MAX_SUBCOMMAND_WORDS = 2;
/**
 * Interpreters: their prefix keeps the script (`node scripts/x.js *`), since `node *` would allow
 * `node -e <any code>`; none when an option comes first (`python3 -c …`, `perl -e …`).
 */
const INTERPRETERS =
  /^(?:node|nodejs|python[\d.]*|pypy[\d.]*|ruby|perl|php|deno|bun|tsx|ts-node|lua[\d.]*|luajit|Rscript|R|java|julia|elixir|groovy|kotlin|scala|swift|awk|gawk|mawk|nawk|tclsh|wish|guile|racket|runghc|runhaskell|osascript|jshell|ipython\d*|irb|ghci|octave(?:-cli)?|sbcl|clisp|ecl|chezscheme|scheme|gst|gnuplot|maxima|gp|sage|matlab|wolframscript|clojure|clj|jupyter|papermill|ansible-playbook)$/;
/** An interpreter's word that names the script or module next (`python -m`, `deno run`). */
const NAMING_WORDS = new Set(["python -m", "pypy -m", "java -jar", "deno run", "bun run"]);
/** Programs that run a command in a container: no prefix (`docker run *` allows any command). */
const CONTAINER_RUNNERS =
  /^(?:(?:docker|podman|nerdctl|finch)(?: container)? run|(?:docker compose|docker-compose|podman-compose) (?:run|exec)|kubectl (?:run|debug)|lxc exec|incus exec)(?: |$)/;
/**
 * Programs whose first word names what they do (a subcommand, a target): a call with an option
 * before it (`git -C . status`, `npm --prefix . test`, `make -C dir`) gets no prefix.
 */
const SUBCOMMAND_PROGRAMS =
  /^(?:git|npm|pnpm|yarn|bun|cargo|go|docker|podman|kubectl|helm|gh|make|gmake|pip3?|uv|poetry|terraform|aws|gcloud|az|systemctl|apt|apt-get|dnf|yum|brew|rustup|dotnet|mvn|gradle|composer|bundle|gem|conda|nix|deno)$/;
/**
 * Programs that run commands given in their input or files, whose every prefix would cover that:
 * database shells (`.shell`, `\!`), editors (`:!`), `cmake` (`-E`, `-P` scripts), `mvn`
 * (`exec:exec` among any goals), `compgen -C`.
 */
const NO_PREFIX =
  /^(?:sqlite3|duckdb|psql|mysql|mariadb|mongosh|mongo|redis-cli|vim?|nvim|gvim|view|vimdiff|ex|emacs|cmake|mvnw?|compgen)$/;
/**
 * Programs whose prefix must keep the word after these words (`make test *`: `make *` runs any
 * recipe; `go run ./cmd/x *`: `go run *` runs any package), as an interpreter keeps its script.
 */
const KEEPS_NEXT_WORD = new Set(["make", "gmake", "go run", "zig run"]);

/**
 * A command that starts with a compound command (bash's reserved words and groupings: a loop, a
 * condition, a `{ …; }` group, a `( … )` subshell, `[[ … ]]`, `(( … ))`, `time`, `!`): its first
 * simple command may be nested in it (`for i in $(seq 3); do …` runs `seq` first), so a prefix
 * would not name the command asked about.
 */
const STARTS_COMPOUND =
  /^\s*(?:(?:for|while|until|if|case|select|function|coproc|time)(?=[\s;]|$)|[({!]|\[\[)/;

/** Programs' own folders, whose path a prefix leaves out (`/usr/bin/git log` → `git log *`). */
const SYSTEM_PROGRAM = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;

/** A prefix pattern and what it leaves out. */
export interface CommandPrefix {
  /** The pattern for `bash(…)`, e.g. `npx tape *`. */
  pattern: string;
  /** The simple commands of the text the pattern does not cover (`tail -5`), as written. */
  notCovered: string[];
}

/** The prefix of `command` by the rule above, or undefined when none may be offered. */
export function commandPrefix(command: string): CommandPrefix | undefined {
  if (STARTS_COMPOUND.test(command)) {
    return undefined;
  }
  const analysis = analyseShellCommand(command);
  if (analysis.unclear.length > 0 || analysis.writes.length > 0) {
    return undefined;
  }
  if (analysis.commands.some(throughRunner)) {
    return undefined;
  }
  const judged = analysis.commands.filter((shellCommand) => !shellCommand.runsScript);
  const first = judged[0];
  if (first === undefined || first.forms.length !== 1 || first.assigns.length > 0) {
    return undefined;
  }
  const [name, ...rest] = first.runs;
  // A wrapper called without a command to run (`watch`, `sudo -u`) gets none either.
  if (
    name === undefined ||
    name.quoted ||
    runsOtherCommand(
      baseName(name.text),
      rest.map((word) => word.text),
    )
  ) {
    return undefined;
  }
  const program = baseName(name.text);
  const runner = readPackageRunner(
    program,
    rest.map((word) => word.text),
  );
  const pattern =
    runner === undefined ? namePattern(name, rest) : packageRunnerPattern(program, runner, rest);
  if (pattern === undefined) {
    return undefined;
  }
  // Rules match a pattern's command name without its path (permission-rules.ts).
  const [patternName = "", ...patternRest] = pattern.split(" ");
  const matched = [baseName(patternName), ...patternRest].join(" ");
  const notCovered = judged
    .filter(
      (shellCommand) =>
        shellCommand.assigns.length > 0 ||
        !shellCommand.forms.some((form) => commandMatches(matched, form)),
    )
    .map((shellCommand) => shellCommand.words.join(" "));
  return { pattern, notCovered };
}

/** The prefix of the call `name rest…` of any program but a package runner (file comment). */
function namePattern(name: DecodedWord, rest: readonly DecodedWord[]): string | undefined {
  const program = baseName(name.text);
  if (CONTAINER_RUNNERS.test([program, ...rest.map((word) => word.text)].join(" "))) {
    return undefined;
  }
  if (INTERPRETERS.test(program)) {
    // A file (`x.py`, `bin/tool`), or the module or script after the word that names it
    // (`python3 -m pytest`, `java -jar app.jar`, `bun run build`, `deno run x.ts`).
    const [first, second] = rest;
    const named = NAMING_WORDS.has(`${program.replace(/[\d.]+$/, "")} ${first?.text}`);
    const script = named ? second : first;
    return script !== undefined && plainPath(script) && (named || /[./]/.test(script.text))
      ? [program, ...(named ? [first?.text] : []), script.text, "*"].join(" ")
      : undefined;
  }
  if (
    NO_PREFIX.test(program) ||
    (SUBCOMMAND_PROGRAMS.test(program) && /^[-+]/.test(rest[0]?.text ?? ""))
  ) {
    // `git -C . status`: the subcommand hides behind an option, and `git *` would allow them all.
    return undefined;
  }
  // A program run by its path keeps it as written (`./x.sh *`), but one from the system's folders.
  const written = /\//.test(name.text) && !SYSTEM_PROGRAM.test(name.text);
  const words = [written ? name.text : program];
  for (const [index, word] of rest.slice(0, MAX_SUBCOMMAND_WORDS).entries()) {
    const kept = KEEPS_NEXT_WORD.has(
      [program, ...rest.slice(0, index).map((w) => w.text)].join(" "),
    );
    if (kept && (!plainPath(word) || word.text.includes("="))) {
      return undefined;
    }
    if (!kept && !looksLikeSubcommand(word)) {
      break;
    }
    words.push(word.text);
  }
  const keeps = KEEPS_NEXT_WORD.has(words.join(" "));
  return keeps ? undefined : `${words.join(" ")} *`;
}

/**
 * `npx tape x` → `npx tape *` (tape through npx): the package runner's words as written, then the
 * prefix of the command it runs; none when that command gets none or runs another (`npx bash -c
 * …`, `npx sudo …`), nor for a script (`npx -c …`).
 */
function packageRunnerPattern(
  name: string,
  runner: WrapperResult,
  rest: readonly DecodedWord[],
): string | undefined {
  if (runner.kind !== "command") {
    return undefined;
  }
  const runnerWords = rest.slice(0, runner.start);
  const [inner, ...innerRest] = rest.slice(runner.start);
  const plain = (word: DecodedWord) => plainPath(word) || /^-[\w@%+=:,./-]*$/.test(word.text);
  if (inner === undefined || !plainPath(inner) || !runnerWords.every(plain)) {
    return undefined;
  }
  const innerName = baseName(inner.text);
  const innerPattern = namePattern(inner, innerRest);
  const runsMore =
    SHELL_NAME.test(innerName) ||
    runsOtherCommand(
      innerName,
      innerRest.map((word) => word.text),
    );
  return innerPattern?.startsWith(`${innerName} `) === true && !runsMore
    ? [name, ...runnerWords.map((word) => word.text), innerPattern].join(" ")
    : undefined;
}

/** A word written plainly: no quotes, escapes, expansion or glob, nor an option (`-e`). */
function plainPath(word: DecodedWord): boolean {
  return (
    !word.quoted &&
    !word.computed &&
    !word.pattern &&
    /^[\w@%+=:,./][\w@%+=:,./-]*$/.test(word.text)
  );
}

/**
 * Whether a script the command runs came through a wrapper (`watch git status`, `flock f -c …`,
 * `sudo bash -c …`) rather than a shell or `eval` of its own (`bash -c 'npm test'`).
 */
function throughRunner(command: ShellCommand): boolean {
  const [name = "", ...rest] = command.words;
  return command.runsScript && (command.forms.length > 1 || runsOtherCommand(baseName(name), rest));
}

function looksLikeSubcommand(word: DecodedWord): boolean {
  return (
    !word.quoted && !word.computed && !word.pattern && /^[A-Za-z][A-Za-z0-9_:+-]*$/.test(word.text)
  );
}

/**
 * What every face says after a prefix's "always" choice about the command's parts it does not
 * cover, which will still ask: ` (tail -5 still asks)`, ` (wc -l, tail -5 still ask)`, or nothing.
 */
export function stillAskedNote(notCovered: readonly string[]): string {
  if (notCovered.length === 0) {
    return "";
  }
  return ` (${notCovered.join(", ")} still ask${notCovered.length === 1 ? "s" : ""})`;
}

/** Whether `name words…` is a wrapper's or a command runner's call (no prefix is offered). */
function runsOtherCommand(name: string, words: readonly string[]): boolean {
  return (
    WRAPPERS.has(name) ||
    COMMAND_RUNNERS.has(name) ||
    WRAPPERS.has(`${name} ${words[0] ?? ""}`) ||
    COMMAND_RUNNERS.has(`${name} ${words[0] ?? ""}`)
  );
}
