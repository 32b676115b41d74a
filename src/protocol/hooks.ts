/**
 * The hooks of the Copilot SDK's protocol (`hooks.invoke {sessionId, hookType, input}` →
 * `{output}`, runtime → app), shared by the SDK and the server: each hook's input and output, and
 * where it runs (src/server/hooks.ts calls them).
 */

import type { HookType, JsonObject, JsonValue, StopReason } from "../events/events.js";
import type { ExternalToolResult } from "./copilot.js";

/** `hooks.invoke` request (runtime → app). `input` has `sessionId`, `timestamp` (ms), `cwd`. */
export interface HooksInvokeParams {
  sessionId: string;
  hookType: HookType;
  input: JsonObject;
}

/** `hooks.invoke` answer. `output` absent or `null`: no opinion. */
export interface HooksInvokeResult {
  output?: JsonValue;
}

/*
 * Hooks (`hooks.invoke`), as the Copilot CLI calls them (the Copilot
 * SDK's `SessionHooks` in its `dist/types.d.ts`). For one prompt with a tool call the order is
 * `sessionStart` (first prompt after create or resume only), `userPromptSubmitted`,
 * `userPromptTransformed`, then per call `preToolUse` and `postToolUse` or `postToolUseFailure`,
 * then `agentStop`; `sessionEnd` when the app detaches. An output that is absent or `null` is "no
 * opinion"; so is one not of its hook's shape (hook-outputs.ts), and a hook that throws or does not answer within
 * {@link hookTimeoutMs} (30 s unless set) — except `preToolUse`, a guard, which fails closed: a
 * `preToolUse` that throws (an error answer to `hooks.invoke`), does not answer in time, or
 * answers what {@link preToolUseProblem} refuses denies the call.
 */

/** How long the runtime waits for the app's answer to `hooks.invoke` unless told (ms): 30 s. */
export const HOOK_TIMEOUT_MS = 30_000;

/**
 * The environment variable that sets that wait: milliseconds, a whole number ≥ 1 (README,
 * "Environment variables"). The server checks it at start (cli/numeric-settings.ts); the SDK
 * reads it from the environment it starts the server with, to warn at the same moment.
 */
export const HOOK_TIMEOUT_VARIABLE = "TURNLOOP_HOOK_TIMEOUT_MS";

/**
 * How long the runtime waits for `hooks.invoke` (ms): {@link HOOK_TIMEOUT_VARIABLE} of `env` when
 * it is a whole number ≥ 1 in decimal digits, else {@link HOOK_TIMEOUT_MS}.
 */
export function hookTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env[HOOK_TIMEOUT_VARIABLE] ?? "";
  const value = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(value) && value >= 1 ? value : HOOK_TIMEOUT_MS;
}

/** `preToolUse`'s decisions, spelt exactly so (the Copilot SDK's `PreToolUseHookOutput`). */
const PRE_TOOL_USE_DECISIONS: readonly unknown[] = ["allow", "deny", "ask"];

/**
 * Why `output`, a `preToolUse` answer, is none the runtime can follow, or undefined when it is
 * one: nothing or `null` (no opinion), or an object ({@link PreToolUseOutput}) whose
 * `permissionDecision` is absent or exactly `allow`, `deny` or `ask` (the Copilot SDK's
 * `PreToolUseHookOutput` type; `"DENY"` is not one) and whose `modifiedArgs`, if any, is an
 * object. The runtime denies the call for any other answer.
 */
export function preToolUseProblem(output: unknown): string | undefined {
  if (output === undefined || output === null) {
    return undefined;
  }
  if (typeof output !== "object" || Array.isArray(output)) {
    return `its answer must be an object ({permissionDecision, …}) or nothing, not ${shownValue(output)}`;
  }
  const { permissionDecision, modifiedArgs } = output as Record<string, unknown>;
  if (permissionDecision !== undefined && !PRE_TOOL_USE_DECISIONS.includes(permissionDecision)) {
    return `permissionDecision must be "allow", "deny" or "ask", not ${shownValue(permissionDecision)}`;
  }
  if (
    modifiedArgs !== undefined &&
    (typeof modifiedArgs !== "object" || modifiedArgs === null || Array.isArray(modifiedArgs))
  ) {
    return `modifiedArgs must be an object, not ${shownValue(modifiedArgs)}`;
  }
  return undefined;
}

/** `value` as JSON, cut at 80 characters. */
function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `preToolUse` output. */
export interface PreToolUseOutput {
  /**
   * `allow`: runs without asking (deny rules still apply); `ask`: asks the app's permission
   * handler even where rules or the read-only default would allow; `deny`: refused, the model
   * reads "Permission denied for '<tool>': Denied by preToolUse hook: <permissionDecisionReason,
   * or 'No reason provided'>" and no post-tool hook runs. Absent: the session's policy decides.
   * Any other value (`"DENY"`) denies the call as a failed hook ({@link preToolUseProblem}).
   */
  permissionDecision?: "allow" | "deny" | "ask";
  permissionDecisionReason?: string;
  /**
   * Replaces the arguments, checked against the tool's schema (arguments that do not fit refuse
   * the call): the permission question shows them and the tool runs them, while
   * `tool.execution_start` keeps the model's.
   */
  modifiedArgs?: JsonObject;
  /** Appended to the result the model reads, after a blank line (an allowed call that runs). */
  additionalContext?: string;
}

/** `postToolUse` output (a call whose `resultType` is `success`). */
export interface PostToolUseOutput {
  /** Replaces the result the model reads: text, or a result object's `textResultForLlm`. */
  modifiedResult?: ExternalToolResult;
  /** Appended to the result the model reads, after a blank line. */
  additionalContext?: string;
}

/**
 * `postToolUseFailure` output (a call whose `resultType` is `failure`). Only `additionalContext`
 * counts, as with Copilot (a `modifiedResult` is ignored): the model reads it after the batch's
 * results as a user message `Tool "<toolName>" failed. Additional guidance from
 * postToolUseFailure hooks:\n<additionalContext>` (the Copilot SDK's snapshot
 * `hooks_extended/should_invoke_posttoolusefailure_hook_for_failed_tool_result`).
 */
export interface PostToolUseFailureOutput {
  additionalContext?: string;
}

/** `userPromptSubmitted` output. */
export interface PromptHookOutput {
  /** Replaces the prompt. */
  modifiedPrompt?: string;
  /** Appended to the prompt, after a blank line. */
  additionalContext?: string;
}

/** `userPromptTransformed` output. */
export interface UserPromptTransformedOutput {
  /** Replaces what the model reads as the prompt, and what the log keeps as it. */
  modifiedTransformedPrompt?: string;
}

/** `sessionStart` output. */
export interface SessionStartOutput {
  /**
   * A user message of its own, just before the prompt (Copilot's snapshot
   * `hooks_extended/should_invoke_sessionstart_hook`), kept in the log (`source: "hook"`).
   */
  additionalContext?: string;
}

/**
 * `agentStop` output: `block` goes on with `reason` (default "Continue.") as the next user
 * message (`source: "hook"`), at most 3 times in a row; anything else lets the prompt end.
 */
export interface AgentStopOutput {
  decision?: "block" | "allow";
  reason?: string;
}

/**
 * `errorOccurred` output (a model request that failed after turnloop's own retries; asked before
 * the failure ends the prompt, src/server/error-hook.ts).
 */
export interface ErrorOccurredOutput {
  /**
   * `retry`: the request is sent again, up to `retryCount` times (a whole number, at most 5;
   * absent: once), each failed attempt kept in the log as a turn ending `failed`, then
   * `assistant.retry`; a retry that fails too takes the next one without asking again, and the
   * last failure ends the prompt (`session.error`). `skip`: the prompt ends without a failure
   * (`session.idle` with `stopReason: "end_turn"`, no `session.error`; a `session.warning`
   * `model_call_skipped` records what failed). `abort` or absent: the failure ends the prompt.
   */
  errorHandling?: "retry" | "skip" | "abort";
  retryCount?: number;
  /** Sent to the app, and kept in the log, as `session.info` with `infoType: "notification"`. */
  userNotification?: string;
  /**
   * Copilot's "don't show the error output to the user". Changes nothing here, kept in the log
   * with the rest of the output (`hook.end`): the server shows the user no output of its own (its
   * stderr never carries a model's failure), and `session.error` is how the app learns that the
   * prompt failed, which it shows or not (README, "In an app: the SDK and `turnloop --headless`").
   */
  suppressOutput?: boolean;
}

/** Fields every hook input has. `timestamp` is ms since the epoch; `cwd` the session's folder. */
export interface HookInputBase {
  sessionId: string;
  timestamp: number;
  cwd: string;
}

/** Each hook's input besides {@link HookInputBase} (Copilot's wire names). */
export interface HookInputs {
  /**
   * Before the permission question of every call of a known tool whose arguments fit its schema,
   * and, as the Copilot CLI does for a call of a tool that does not exist, before the error result
   * of a call that cannot run (no such tool; arguments that are no JSON, do not fit the tool's
   * schema or were cut off): its output unused there.
   */
  preToolUse: { toolName: string; toolArgs: JsonObject };
  /**
   * After a call that ran and succeeded: what every face shows completed. `textResultForLlm` is
   * what the model reads unless the hook changes it.
   */
  postToolUse: {
    toolName: string;
    toolArgs: JsonObject;
    toolResult: { textResultForLlm: string; resultType: "success" };
  };
  /**
   * After a call whose `resultType` is `failure`: one that every face shows failed (an error
   * result, a `bash` command that exited non-zero or was killed by a signal), a call of a tool
   * that does not exist (the Copilot CLI's `failure` too) and a call with arguments that do not
   * fit its tool. Not for a call refused (`denied`: rules, hooks, the sandbox; `rejected`: the
   * user or app said no), a `bash` command stopped at its timeout or an app's tool that answered
   * `timeout`, or a call cancelled. `error` is the text the model reads as the call's result
   * (`…\n<exited with exit code 4>` for a command).
   */
  postToolUseFailure: { toolName: string; toolArgs: JsonObject; error: string };
  /** Before every prompt; `prompt` is the app's text with its attachments' text. */
  userPromptSubmitted: { prompt: string };
  /**
   * After `userPromptSubmitted`: `prompt` as that hook left it, `transformedPrompt` what the
   * model will read (with that hook's `additionalContext`).
   */
  userPromptTransformed: { prompt: string; transformedPrompt: string };
  /** Before the first prompt after `session.create` (`new`) or `session.resume` (`resume`). */
  sessionStart: { source: "new" | "resume"; initialPrompt: string };
  /** When the app detaches (`session.detach`, `session.destroy`): `user_exit`. Output recorded. */
  sessionEnd: { reason: "user_exit" };
  /**
   * When a prompt ends on its own (not on cancel or error): `transcriptPath` is the session's
   * `events.jsonl`; `stop_hook_active` (the Copilot SDK gives it as `stopHookActive`) says that
   * this stop follows a `block`.
   */
  agentStop: { stopReason: StopReason; transcriptPath: string; stop_hook_active: boolean };
  /**
   * When a model request of a prompt failed after turnloop's own retries, before the failure
   * ends the prompt (never for a tool's failure: `postToolUseFailure`). `error` is the failure's
   * message; `recoverable` is true for the kinds a new request may get past (a rate limit, an
   * overloaded or failing server, the network, a stalled stream), false for the others (a key,
   * a request the server refuses, a context window too small).
   */
  errorOccurred: { error: string; errorContext: "model_call"; recoverable: boolean };
}

/** Each hook's output (what the runtime reads; anything else is recorded only). */
export interface HookOutputs {
  preToolUse: PreToolUseOutput;
  postToolUse: PostToolUseOutput;
  postToolUseFailure: PostToolUseFailureOutput;
  userPromptSubmitted: PromptHookOutput;
  userPromptTransformed: UserPromptTransformedOutput;
  sessionStart: SessionStartOutput;
  sessionEnd: JsonObject;
  agentStop: AgentStopOutput;
  errorOccurred: ErrorOccurredOutput;
}
