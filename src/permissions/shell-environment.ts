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
 * {@link INERT_VARIABLES} given a literal value. Deny rules ignore assignments (they match the
 * command that runs whatever its environment).
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import { type DecodedWord, decodeWord } from "./shell-words.js";

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
const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;

/**
 * The variables the `Assigns` of a `CallExpr` (`A=1 B=$x cmd`) or the `Args` of a
 * `DeclClause` (`export A=1 B`) set, but those of {@link INERT_VARIABLES} given a literal value.
 */
export function assignedVariables(
  sh: ShellSyntax,
  assigns: readonly ShellNode[],
  source: Buffer,
): string[] {
  const names: string[] = [];
  for (const assign of assigns) {
    const name = (assign.Name as ShellNode | null)?.Value;
    if (typeof name !== "string") {
      continue; // An option of `declare` (`-x`), which is not a variable.
    }
    const value = assign.Value as ShellNode | null;
    const literal = value === null || !decodeWord(sh, value, source).computed;
    if (!(INERT_VARIABLES.has(name) && literal && assign.Naked !== true)) {
      names.push(name);
    }
  }
  return names;
}

/** The variables the `NAME=value` words among `words` (those `env` or `sudo` skipped) set. */
export function wrapperAssignments(words: readonly DecodedWord[]): string[] {
  return words.flatMap((word) => {
    const name = ASSIGNMENT_WORD.exec(word.text)?.[1];
    return name === undefined || (INERT_VARIABLES.has(name) && !word.computed) ? [] : [name];
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
export function nodeAssignments(sh: ShellSyntax, node: ShellNode): string[] {
  if (sh.NodeType(node) === "WordIter") {
    const name = (node.Name as ShellNode | null)?.Value;
    return typeof name === "string" && (/[A-Z]/.test(name) || /_proxy$/i.test(name)) ? [name] : [];
  }
  const descriptor = (node.N as ShellNode | null)?.Value;
  const name = typeof descriptor === "string" ? /^\{(\w+)\}$/.exec(descriptor)?.[1] : undefined;
  return name === undefined ? [] : [name];
}
