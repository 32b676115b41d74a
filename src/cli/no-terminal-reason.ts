/**
 * Why `turnloop -p` refused a call it had no terminal to ask about, with the way to allow it that
 * fits the case: one table, by what the call is (a command that cannot be fully read, an MCP
 * tool, a command the sandbox stopped to run again outside it, a command, an edit or other call)
 * and how the run decides (permission mode `ask` or `auto`, and the sandbox policy in force). Said to the model and shown on the tool line, so it
 * stays short: the rule suggested is the one an "always" answer would record (`bash(npm test)`,
 * `edit(src/a.ts)`), quoted for a POSIX shell whatever it holds, so the advice can be pasted; for
 * a compound command the allow rules cover in part, the parts they leave are named, each with its
 * own rule (`the allow rules do not cover \`rm a01\`; … --allow-tool 'bash(rm a01)'`).
 */

import type { NoAskSituation } from "../permissions/permission-gate.js";
import type { PermissionMode } from "../permissions/permission-mode.js";
import type { UncoveredPart } from "../permissions/uncovered-parts.js";
import {
  type LimitSettings,
  liftingSetting,
  type SandboxLimit,
  sandboxLimit,
} from "../session/sandbox-limit.js";

/**
 * `-p`'s flags that lift the sandbox's limits; the network also by its config key, kept for later
 * runs (README, "Sandbox").
 */
const LIMIT_FLAGS: LimitSettings = {
  network: "--sandbox-network or sandbox.network: true in a config file",
  "unix-socket": "sandbox.allowUnixSockets: true in a config file",
  "read-only": "--sandbox workspace-write",
  "outside-workspace": "--add-dir <folder>",
  protected: "--sandbox danger-full-access --allow-tool RULE",
  folders: "--add-dir",
};

/** The way out of a `limit` the sandbox hit; `protectedFlags` in place of `LIMIT_FLAGS.protected`. */
function sandboxWayOut(limit: SandboxLimit, protectedFlags = LIMIT_FLAGS.protected): string {
  const flags = { ...LIMIT_FLAGS, protected: protectedFlags };
  return `rerun with ${liftingSetting(limit, flags)}, or run -p on a terminal to be asked`;
}

/** The cases of the table, decided by {@link caseOf}. */
type NoTerminalCase =
  | "unclear"
  | "mcp"
  | "sandboxed-command"
  | "unsandboxed-auto"
  | "read-only-edit"
  | "outside-edit"
  | "configuration-edit"
  | "sandbox-network"
  | "sandbox-unix-socket"
  | "sandbox-read-only"
  | "sandbox-outside-workspace"
  | "sandbox-protected"
  | "sandbox-protected-auto"
  | "other";

/**
 * The way out of each case; `RULE` is the call's rule, `MCP_RULE` its server's, shell-quoted;
 * `WHY` why auto asks about the edit (the gate's `laterRun`: permissions/later-runs.ts
 * `laterRunReasonOf`).
 */
const WAY_OUT: Record<NoTerminalCase, string> = {
  unclear:
    "no flag allows a command that cannot be fully read while deny rules apply: run -p on a terminal to answer",
  mcp: "rerun with --allow-tool MCP_RULE or --allow-all-tools",
  "sandboxed-command":
    "rerun with --permission-mode auto (commands run in the sandbox without asking) or --allow-tool RULE",
  "unsandboxed-auto":
    "auto asks since no sandbox can run here; rerun with --allow-tool RULE or --allow-all-tools",
  "read-only-edit":
    "the read-only sandbox asks about every edit; rerun with --allow-tool RULE or --sandbox workspace-write",
  "outside-edit":
    "auto asks about edits outside the workspace; rerun with --allow-tool RULE or --add-dir <folder>",
  "configuration-edit":
    "auto asks about edits of what later runs read: WHY; rerun with --allow-tool RULE",
  // A command the sandbox stopped, which would run again outside it only with the user's yes: the
  // flag that lets the sandbox allow what it hit (permissions/permission-mode.ts).
  "sandbox-network": sandboxWayOut("network"),
  "sandbox-unix-socket": sandboxWayOut("unix-socket"),
  "sandbox-read-only": sandboxWayOut("read-only"),
  "sandbox-outside-workspace": sandboxWayOut("outside-workspace"),
  "sandbox-protected": sandboxWayOut("protected"),
  // `--permission-mode auto` and `--sandbox danger-full-access` are a usage error together, and
  // so is `--permission-mode` given twice (argument-flags.ts): under auto the advice names the
  // mode `ask` in place of `auto`.
  "sandbox-protected-auto": sandboxWayOut(
    "protected",
    `--permission-mode ask ${LIMIT_FLAGS.protected}, in place of --permission-mode auto`,
  ),
  other: "rerun with --allow-tool RULE or --allow-all-tools",
};

/**
 * The reason `-p` gives for a call refused for want of a terminal, under the configured
 * permission `mode` (auto falls back to asking where no sandbox can run).
 * @returns `no terminal to ask on; <the way out>`.
 */
export function noTerminalReason(mode: PermissionMode): (situation: NoAskSituation) => string {
  return (situation) => {
    const { question } = situation;
    // The parts of a command the allow rules leave: named, each with why and a rule of its own
    // when one can cover it; else the whole command's rule.
    const parts = question.notAllowed ?? [];
    const own = parts.flatMap(({ pattern }) => (pattern === undefined ? [] : [pattern]));
    const rules: Record<string, string> = {
      RULE:
        own.length === 0 || own.length < parts.length
          ? shellQuoted(question.alwaysRule)
          : own
              .map((pattern) => shellQuoted(`${question.toolName}(${pattern})`))
              .join(" --allow-tool "),
      MCP_RULE: shellQuoted(`mcp(${question.mcp?.serverName ?? ""})`),
    };
    const kind = caseOf(situation, mode);
    if (kind === "configuration-edit") {
      rules.WHY = situation.laterRun ?? "";
    }
    // One pass, by a function: a rule holding `MCP_RULE` or `$&` is not read as a placeholder.
    const wayOut = WAY_OUT[kind].replace(
      /\b(?:(?:MCP_)?RULE|WHY)\b/g,
      (name) => rules[name] ?? name,
    );
    const uncovered = parts.length === 0 ? "" : `${partsSaid(parts)}; `;
    return `no terminal to ask on; ${uncovered}${wayOut}`;
  };
}

/**
 * The parts of a command the allow rules leave, as a refusal says them: first those a rule of their
 * own covers (`the allow rules do not cover \`touch x\` (\`env\` runs it: …)`), then those only a
 * rule for the whole command covers (`\`> out\` writes a file, which only a rule for the whole
 * command allows`).
 */
function partsSaid(parts: readonly UncoveredPart[]): string {
  const own = parts.filter((part) => part.pattern !== undefined);
  const wholeOnly = parts.filter((part) => part.pattern === undefined);
  const ownSaid = own.map(({ text, reason }) =>
    reason === undefined ? `\`${text}\`` : `\`${text}\` (${reason})`,
  );
  const wholeSaid = wholeOnly.map(({ text, reason }) =>
    text === "" ? (reason ?? "") : `\`${text}\` ${reason ?? ""}`,
  );
  return [
    ...(ownSaid.length === 0 ? [] : [`the allow rules do not cover ${ownSaid.join(", ")}`]),
    ...(wholeSaid.length === 0
      ? []
      : [`${wholeSaid.join(" and ")}, which only a rule for the whole command allows`]),
  ].join("; ");
}

/**
 * `text` as one shell word: in single quotes, each `'` written as `'\''` (close, an escaped
 * quote, reopen), so the shell passes it through unchanged (POSIX.1-2017, Shell Command Language
 * 2.2.3, Single-Quotes); when it holds a control character (a file name can), as `$'…'` with each
 * one as `\xHH` (C0, DEL) or `\uHHHH` (C1), `\` and `'` escaped, which bash, zsh and ksh93 read
 * back as the same characters (POSIX.1-2024 2.2.4, Dollar-Single-Quotes; `\u` is bash's and
 * zsh's): the rule can still be pasted, and no control sequence reaches the terminal.
 */
function shellQuoted(text: string): string {
  if (!CONTROL_CHARACTER.test(text)) {
    return `'${text.replaceAll("'", "'\\''")}'`;
  }
  const escaped = text.replace(/[\\']/g, "\\$&").replace(CONTROL_CHARACTERS, (character) => {
    const code = character.charCodeAt(0);
    const hex = code.toString(16).padStart(code < 0x80 ? 2 : 4, "0");
    return code < 0x80 ? `\\x${hex}` : `\\u${hex}`;
  });
  return `$'${escaped}'`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, "g");

function caseOf(
  { question, unclear, auto, confinement, laterRun }: NoAskSituation,
  mode: PermissionMode,
): NoTerminalCase {
  if (unclear !== undefined) {
    return "unclear";
  }
  if (question.mcp !== undefined) {
    return "mcp";
  }
  const stopped = question.sandbox?.outsideReason;
  if (stopped !== undefined) {
    const limit = sandboxLimit(stopped, confinement?.policy);
    return limit === "protected" && mode === "auto" ? "sandbox-protected-auto" : `sandbox-${limit}`;
  }
  const confined = confinement !== undefined && confinement.policy !== "danger-full-access";
  if (question.command !== undefined) {
    if (mode === "auto" && !auto) {
      return "unsandboxed-auto";
    }
    return confined ? "sandboxed-command" : "other";
  }
  if (auto && question.kind === "edit") {
    if (confinement?.policy === "read-only") {
      return "read-only-edit";
    }
    return laterRun !== undefined ? "configuration-edit" : "outside-edit";
  }
  return "other";
}
