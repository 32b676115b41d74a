/**
 * Which environment variables a simple command sets, for the allow rules (trial finding 19):
 * `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=… git status` runs
 * `git status` with a configuration that runs any program, as do `GIT_EXTERNAL_DIFF`,
 * `GIT_SSH_COMMAND`, `LD_PRELOAD`, `BASH_ENV`, `NODE_OPTIONS`, `PATH` and many more. So an
 * assignment is never inert to an allow rule: a command that sets a variable — as a prefix
 * (`A=1 git status`), through `env A=1 …` or `sudo A=1 …`, alone (`A=1`, which changes the
 * environment of later commands when `A` is already exported) or with `export`, `declare`,
 * `typeset`, `local` or `readonly` — is covered only by a rule equal to the whole command, as
 * Codex's and Claude Code's rule readers also refuse or ask. The exceptions are
 * {@link INERT_VARIABLES} given a literal value. Deny rules match the command that runs whatever
 * its environment, but a variable known to make a program run another (the session-16 trial's
 * findings 3 and 15: {@link variableRunsPrograms}, bash's `BASH_CMDS` and `BASH_ALIASES`), set
 * in any of these ways or by `read`, `mapfile`, `printf -v`, a loop or `{NAME}>`, makes the
 * command one that cannot be fully read (its reason goes to `ShellAnalysis.unclear`), as do
 * `hash -p`, `enable -f`, a computed variable name and `declare -n`: then a deny rule whose
 * command the text mentions anywhere applies (the value `"touch m"` of `GIT_SSH_COMMAND`), and
 * `--allow-all-tools` asks.
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import type { ShellAnalysis } from "./shell-analysis.js";
import { type BuiltinReading, readNamesAndCommands, subscriptEvaluated } from "./shell-values.js";
import { type DecodedWord, decodeWord, sourceOf } from "./shell-words.js";

/**
 * Variables that change only how a program prints or what locale it uses, never what it runs:
 * an allow rule still covers a command that sets one of these to a literal value.
 */
export const INERT_VARIABLES: ReadonlySet<string> = new Set([
  "CI",
  "COLUMNS",
  "FORCE_COLOR",
  "LANG",
  "LC_ALL",
  "NO_COLOR",
  "TERM",
  "TZ",
]);

/** `NAME=value` as a word (after `env` or `sudo`), with the name captured. */
const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/;

/**
 * Variables a program reads as a program or command to run, as its options, a library, a search
 * path, a startup or configuration file or the folder holding one (trial findings 3 and 15):
 * `GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `EDITOR`, `PAGER`, `LESSOPEN`, `BASH_ENV`,
 * `GIT_CONFIG_PARAMETERS`, `LD_PRELOAD`, `NODE_OPTIONS`, `PERL5OPT`, `TAR_OPTIONS`, `PATH`,
 * `HOME`, `PS4` … by name or by the family and ending of their names. Setting one makes the
 * command "cannot be fully read": its value changes what runs, whatever the command's own text.
 */
const PROGRAM_VARIABLE_NAMES: ReadonlySet<string> = new Set(
  (
    "PATH HOME SHELL ENV EDITOR VISUAL PAGER BROWSER TERMINAL PROMPT_COMMAND PS0 PS1 PS2 PS3 PS4 " +
    "SHELLOPTS BASHOPTS CC CXX CPP LD AR AS FC RUSTC MAKE LESS MORE UNZIP GZIP BZIP2 GOENV " +
    "GOTOOLCHAIN FCEDIT TEXEDIT HISTFILE ZDOTDIR MAKEFILES EXINIT VIMINIT GVIMINIT"
  ).split(" "),
);
/** Families of such variables by the start of their names (`GIT_*` but author and committer). */
const PROGRAM_VARIABLE_FAMILIES =
  "GIT_(?!(?:AUTHOR|COMMITTER)_(?:NAME|EMAIL|DATE)$) LD_ DYLD_ BASH_ PYTHON PERL RUBY LUA_ LESS " +
  "JAVA _JAVA JDK_JAVA MAN XDG_ SSH_ SUDO_ CARGO_ RUSTUP_ GEM_ BUNDLE_ npm_config_ NPM_CONFIG_ " +
  "YARN_ GCONV_";
/** …and by the ends of their names (`GIT_SSH_COMMAND`, `NODE_OPTIONS`, `KUBECONFIG`). */
const PROGRAM_VARIABLE_ENDINGS =
  "COMMAND _CMD EDITOR PAGER ASKPASS RSH SSH PROG PROGRAM OPT OPTS OPTIONS FLAGS PATH LIB HOME " +
  "_DIR DIRS RC STARTUP _INIT RUNNER WRAPPER SHELL EXEC EXECUTABLE _BIN CONFIG _CONF CONFIG_FILE " +
  "HOOKS";
const FAMILIES = PROGRAM_VARIABLE_FAMILIES.replaceAll(" ", "|");
const PROGRAM_VARIABLE = new RegExp(
  `^(?:${FAMILIES})|(?:${PROGRAM_VARIABLE_ENDINGS.replaceAll(" ", "|")})$`,
);
/** bash's tables from a command name to what it runs: `BASH_CMDS[ls]=/usr/bin/rm` (finding 15). */
const LOOKUP_TABLES: ReadonlySet<string> = new Set(["BASH_CMDS", "BASH_ALIASES"]);

/** Whether a program may run another because the variable `name` is set (see above). */
export function variableRunsPrograms(name: string): boolean {
  return PROGRAM_VARIABLE_NAMES.has(name) || PROGRAM_VARIABLE.test(name);
}

/**
 * Why setting `name` (written as `text`) makes the command "cannot be fully read", or undefined:
 * a lookup table of bash's, or a variable of {@link variableRunsPrograms}.
 */
export function settingConcern(name: string, text: string): string | undefined {
  if (LOOKUP_TABLES.has(name)) {
    return `${text} changes which program a command name runs (bash's ${name})`;
  }
  return variableRunsPrograms(name)
    ? `${text} sets ${name}, which can make a program run another`
    : undefined;
}

/**
 * The variables the `Assigns` of a `CallExpr` (`A=1 B=$x cmd`) or the `Args` of a
 * `DeclClause` (`export A=1 B`; `declaration` is its word) set, but those of
 * {@link INERT_VARIABLES} given a literal value. Why any of them cannot be read goes to `unclear`:
 * a variable of {@link settingConcern}, a name computed when it runs (`export "$n"=1`), a name
 * reference (`declare -n r=EDITOR`, through which `r=…` sets another variable).
 */
export function assignedVariables(
  sh: ShellSyntax,
  assigns: readonly ShellNode[],
  source: Buffer,
  unclear: string[],
  declaration?: string,
): string[] {
  const names: string[] = [];
  for (const assign of assigns) {
    const text = sourceOf(assign, source);
    const value = assign.Value as ShellNode | null;
    const decoded = value === null ? undefined : decodeWord(sh, value, source);
    const name = assignmentName(assign, decoded, declaration, text, unclear);
    if (name === undefined) {
      continue;
    }
    const concern = settingConcern(name, text);
    if (concern !== undefined) {
      unclear.push(concern);
    }
    const literal = decoded === undefined || !decoded.computed;
    if (!(INERT_VARIABLES.has(name) && literal && assign.Naked !== true)) {
      names.push(name);
    }
  }
  return names;
}

/** The variable one assignment sets; undefined for a declaration's option or a computed name. */
function assignmentName(
  assign: ShellNode,
  decoded: DecodedWord | undefined,
  declaration: string | undefined,
  text: string,
  unclear: string[],
): string | undefined {
  const name = (assign.Name as ShellNode | null)?.Value;
  if (typeof name === "string") {
    return name;
  }
  // A naked word of a declaration: an option (`-x`), a quoted `"A=1"`, or a computed name.
  if (decoded === undefined) {
    return undefined;
  }
  if (/^[-+]/.test(decoded.text) && !decoded.computed) {
    if (declaration !== "export" && /^-[A-Za-z]*n/.test(decoded.text)) {
      unclear.push(
        `${declaration ?? "declare"} ${decoded.text} makes a name stand for another variable`,
      );
    }
    return undefined;
  }
  const literalName = ASSIGNMENT_WORD.exec(`${decoded.text}=`)?.[1];
  if (decoded.computed || literalName === undefined) {
    unclear.push(`a variable whose name is computed when it runs (${text})`);
    return undefined;
  }
  if (subscriptEvaluated(decoded.text)) {
    unclear.push(`${declaration ?? "declare"} ${text}: bash evaluates the name's subscript`);
  }
  return literalName;
}

/**
 * The variables the `NAME=value` words among `words` (those `env` or `sudo` skipped) set; why
 * any cannot be read goes to `unclear` ({@link settingConcern}).
 */
export function wrapperAssignments(words: readonly DecodedWord[], unclear: string[]): string[] {
  return words.flatMap((word) => {
    const name = ASSIGNMENT_WORD.exec(word.text)?.[1];
    if (name === undefined) {
      return [];
    }
    const concern = settingConcern(name, word.text);
    if (concern !== undefined) {
      unclear.push(concern);
    }
    return INERT_VARIABLES.has(name) && !word.computed ? [] : [name];
  });
}

/**
 * The variable a loop or a redirection sets (mvdan-sh's `WordIter`, `Redirect`), or none:
 * - `for NAME in …` / `select NAME in …`, when it may be exported: a name with a capital letter
 *   (`HOME`, `PATH`, `GIT_DIR`: programs read theirs in capitals) or a proxy variable
 *   (`http_proxy`). `for HOME in ./x; do git status; done` runs git with another home, whose
 *   `.gitconfig` can run any program (a fresh user's check); `for f in *.ts` sets a shell
 *   variable only.
 * - `{NAME}>file`, which stores the descriptor's number in `NAME`, any name:
 *   `{ git status; } {HOME}>/dev/null` runs git with `HOME=10`.
 */
export function nodeAssignments(sh: ShellSyntax, node: ShellNode, unclear: string[]): string[] {
  const names = loopOrDescriptorVariable(sh, node);
  for (const name of names) {
    const concern = settingConcern(name, name);
    if (concern !== undefined) {
      unclear.push(concern);
    }
  }
  return names.filter((name) => sh.NodeType(node) !== "WordIter" || exportable(name));
}

function loopOrDescriptorVariable(sh: ShellSyntax, node: ShellNode): string[] {
  if (sh.NodeType(node) === "WordIter") {
    const name = (node.Name as ShellNode | null)?.Value;
    return typeof name === "string" ? [name] : [];
  }
  const descriptor = (node.N as ShellNode | null)?.Value;
  const name = typeof descriptor === "string" ? /^\{(\w+)\}$/.exec(descriptor)?.[1] : undefined;
  return name === undefined ? [] : [name];
}

function exportable(name: string): boolean {
  return /[A-Z]/.test(name) || /_proxy$/i.test(name);
}

/**
 * Options of the builtins that set variables named in their arguments which take a value
 * (`read -p prompt NAME`), and where their names are: `read`'s and `mapfile`'s operands, the
 * value of `printf -v` and `wait -p`, the second operand of `getopts`.
 */
const SETTING_BUILTINS: Readonly<Record<string, { valued: string; named: string }>> = {
  read: { valued: "dinNptu", named: "a" },
  mapfile: { valued: "dnOsuCc", named: "" },
  readarray: { valued: "dnOsuCc", named: "" },
  printf: { valued: "", named: "v" },
  getopts: { valued: "", named: "" },
  wait: { valued: "", named: "p" },
};

/**
 * What the builtin `name` with the words `tail` does to how later names are looked up (trial
 * finding 15), pushed to `unclear`: `hash -p FILE NAME` makes `NAME` run `FILE`; `enable -f`
 * loads a builtin from a shared object; `mapfile -C` runs a callback; `read`, `mapfile`,
 * `printf -v`, `getopts` and `wait -p` setting a variable of {@link settingConcern} (`read -a
 * BASH_CMDS`), one whose name is computed, one with a subscript bash evaluates (`read
 * 'a[$(cmd)]'`: {@link subscriptEvaluated}) or an integer one. Also what the builtins that take
 * names or commands in their words do ({@link readNamesAndCommands}).
 */
export function readBuiltinSettings(
  name: string,
  tail: readonly DecodedWord[],
  reading: BuiltinReading,
): void {
  const { unclear } = reading;
  const end = tail.findIndex((word) => word.text === "--");
  const options = (end === -1 ? tail : tail.slice(0, end)).filter((word) =>
    /^-[A-Za-z]/.test(word.text),
  );
  const has = (letter: string) => options.some((word) => word.text.slice(1).includes(letter));
  if ((name === "hash" && has("p")) || (name === "enable" && has("f"))) {
    unclear.push(
      `${name} -${name === "hash" ? "p" : "f"} changes which program a command name runs`,
    );
    return;
  }
  if ((name === "mapfile" || name === "readarray") && has("C")) {
    unclear.push(`${name} -C runs a callback`);
  }
  for (const word of settingBuiltinTargets(name, tail)) {
    const variable = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.text)?.[0];
    const concern =
      word.computed || variable === undefined
        ? undefined
        : settingConcern(variable, `${name} ${word.text}`);
    if (word.computed || variable === undefined) {
      unclear.push(`${name} sets a variable whose name is computed when it runs (${word.text})`);
    } else if (subscriptEvaluated(word.text) || reading.integers.has(variable)) {
      unclear.push(`${name} ${word.text}: bash evaluates the name's subscript or value`);
    } else if (concern !== undefined) {
      unclear.push(concern);
    }
  }
  readNamesAndCommands(name, tail, options, reading);
}

/** The words naming the variables `read`, `mapfile`, `printf -v` or `getopts` set. */
function settingBuiltinTargets(name: string, tail: readonly DecodedWord[]): DecodedWord[] {
  const spec = SETTING_BUILTINS[name];
  if (spec === undefined) {
    return [];
  }
  const targets: DecodedWord[] = [];
  const operands: DecodedWord[] = [];
  for (let index = 0; index < tail.length; index++) {
    const word = tail[index];
    if (word === undefined || word.text === "--") {
      operands.push(...tail.slice(index + 1));
      break;
    }
    const option = /^-([A-Za-z]+)(.*)$/s.exec(word.text);
    if (option === null || operands.length > 0) {
      operands.push(word);
      continue;
    }
    const letters = option[1] ?? "";
    const at = [...letters].findIndex((letter) => (spec.valued + spec.named).includes(letter));
    if (at === -1) {
      continue;
    }
    const joined = letters.slice(at + 1) + (option[2] ?? "");
    const value = joined === "" ? tail[++index] : { ...word, text: joined };
    if (value !== undefined && spec.named.includes(letters[at] ?? "")) {
      targets.push(value);
    }
  }
  if (name === "getopts") {
    return operands.slice(1, 2);
  }
  return name === "printf" || name === "wait" ? targets : [...targets, ...operands];
}

/**
 * A node that only sets variables, listed as a command of its own with its text as its one
 * spelling: `export A=1`, `declare -x A`, `local a` (a `DeclClause`), `A=1` alone (a `CallExpr`
 * without words), a loop or `{NAME}>` redirection setting one that may be exported.
 */
export function readSettingNode(
  sh: ShellSyntax,
  node: ShellNode,
  source: Buffer,
  analysis: ShellAnalysis,
): void {
  const text = sourceOf(node, source);
  let assigns: string[];
  switch (sh.NodeType(node)) {
    case "DeclClause": {
      const declaration = (node.Variant as ShellNode | null)?.Value;
      const args = (node.Args as ShellNode[] | null) ?? [];
      assigns = assignedVariables(sh, args, source, analysis.unclear, String(declaration ?? ""));
      break;
    }
    case "CallExpr":
      assigns = assignedVariables(
        sh,
        (node.Assigns as ShellNode[] | null) ?? [],
        source,
        analysis.unclear,
      );
      break;
    default:
      assigns = nodeAssignments(sh, node, analysis.unclear);
      if (assigns.length === 0) {
        return;
      }
  }
  if (assigns.length > 0 || sh.NodeType(node) === "DeclClause") {
    analysis.commands.push({ words: [text], forms: [text], runs: [], runsScript: false, assigns });
  }
}
