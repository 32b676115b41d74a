/**
 * Which program's exit status `bash -c command` returns, read from the command's text with the
 * shell parser (shell-commands.ts): for the sandbox's network hint, where an exit code is
 * evidence only when the client that defines it returned it (tools/sandbox/sandboxed-runner.ts).
 */

import type { ShellNode, ShellSyntax } from "mvdan-sh";
import { analyseShellCommand, baseName, parseShell, shellSyntax } from "./shell-commands.js";
import { sourceOf } from "./shell-words.js";

/**
 * Wrappers whose exit status is that of the command they run when it ran (`timeout`'s 124 and
 * the like are other codes). Not `xargs` (123 for any failure), `setsid` (may return before the
 * command ends), nor shells and `eval` (their script's own last command would decide).
 */
const PASSES_STATUS = new Set([
  "command",
  "exec",
  "env",
  "nohup",
  "nice",
  "ionice",
  "stdbuf",
  "timeout",
  "sudo",
  "doas",
]);

/**
 * The name (path removed: `/usr/bin/curl` is `curl`) of the program whose exit status
 * `bash -c command` returns: the last simple command of the last statement, through `;`, `&&`,
 * `||`, pipes, `{ …; }`, `( … )` and `time`, wrappers that pass the status on peeled off
 * (`env curl`, `command curl`). `undefined` when that cannot be told from the text: a compound
 * command (`if`, loops, functions), `!`, a background job, a computed name, a script run by a
 * shell or `eval`, or a pipeline when the text mentions `pipefail` (any command of it could then
 * decide). For `a && b` it is `b`, though a failing `a` returns its own status. Never throws.
 */
export function statusProgram(command: string): string | undefined {
  const sh = shellSyntax();
  let file: ShellNode;
  try {
    file = parseShell(command);
  } catch {
    return undefined;
  }
  const call = decidingCall(sh, file, /\bpipefail\b/.test(command));
  if (call === undefined) {
    return undefined;
  }
  const [simple] = analyseShellCommand(sourceOf(call, Buffer.from(command, "utf8"))).commands;
  const program = simple?.runs[0];
  if (simple === undefined || program === undefined || program.computed || program.pattern) {
    return undefined;
  }
  const wrappers = simple.forms.slice(0, -1).map((form) => form.split(" ", 1)[0] ?? "");
  return wrappers.every((name) => PASSES_STATUS.has(name)) ? baseName(program.text) : undefined;
}

/** The `CallExpr` whose status `node` returns, or `undefined` (see {@link statusProgram}). */
function decidingCall(sh: ShellSyntax, node: ShellNode, pipefail: boolean): ShellNode | undefined {
  switch (sh.NodeType(node)) {
    case "File":
    case "Block":
    case "Subshell": {
      const last = ((node.Stmts as ShellNode[] | null) ?? []).at(-1);
      return last === undefined ? undefined : decidingCall(sh, last, pipefail);
    }
    case "Stmt": {
      const inner = node.Cmd as ShellNode | null;
      const runs = inner !== null && node.Negated !== true && node.Background !== true;
      return runs ? decidingCall(sh, inner, pipefail) : undefined;
    }
    case "TimeClause": {
      const timed = node.Stmt as ShellNode | null;
      return timed === null ? undefined : decidingCall(sh, timed, pipefail);
    }
    case "BinaryCmd": {
      const pipe = PIPES.has(node.Op as number);
      return pipe && pipefail ? undefined : decidingCall(sh, node.Y as ShellNode, pipefail);
    }
    case "CallExpr":
      return node;
    default:
      return undefined;
  }
}

/** mvdan/sh `BinCmdOperator`s `|` and `|&` (`&&` and `||` are 10 and 11). */
const PIPES = new Set([12, 13]);
