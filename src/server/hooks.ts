/**
 * Hooks of an SDK app (Copilot SDK `SessionHooks`), called with `hooks.invoke {sessionId,
 * hookType, input}` → `{output}` when the session was created with `hooks: true`. Each call is
 * recorded as `hook.start` / `hook.end`. A hook that fails, times out or is cancelled has no
 * opinion: the runtime goes on as without it; except `preToolUse`, a guard, which fails closed
 * (pre-tool-hook.ts): the call is denied.
 *
 * Where each hook runs and what its output does (each input and output: src/protocol/hooks.ts):
 * - `preToolUse` {toolName, toolArgs}: in the permission path, before the gate, and, as the
 *   Copilot CLI does, for a call of a tool that does not exist before its "does not exist" result
 *   (its output changes nothing then), and so for a call whose arguments fail the tool's schema
 *   (or are no JSON, or were cut off), which is answered with that failure. `deny` refuses the call ("Denied by preToolUse
 *   hook: <reason>"); `allow` skips asking (deny rules still apply); `ask` asks even where rules
 *   or the read-only default would allow; `modifiedArgs` (checked against the tool's schema)
 *   replace the arguments: the gate judges them and the tool runs them, while
 *   `tool.execution_start` keeps the model's original ones (Copilot's history); `additionalContext`
 *   is appended to the result.
 * - After a call ran, by Copilot's `resultType` of its result (tool-result-type.ts, which reads it
 *   as the one fold reads the call's `tool.execution_complete`): `postToolUse` {toolName,
 *   toolArgs, toolResult} for `success`: `modifiedResult` replaces, and `additionalContext` is
 *   appended to, what the model sees; `postToolUseFailure` {toolName, toolArgs, error: the text
 *   the model reads} for `failure` (a failed run, a command that exited non-zero or was killed,
 *   a call of a tool that does not exist, a call with bad arguments): as with Copilot, only `additionalContext` counts;
 *   the model reads it after the batch's results as a user message `Tool "<name>" failed.
 *   Additional guidance from postToolUseFailure hooks:\n<context>`. Neither for `denied`,
 *   `rejected` or `timeout` (Copilot's rule), nor for a call cancelled.
 * - `sessionStart` {source: new | resume, initialPrompt} before the first prompt after create or
 *   resume: its `additionalContext` is a user message of its own just before the prompt, as
 *   Copilot sends it. Then `userPromptSubmitted` {prompt} before every prompt: `modifiedPrompt`
 *   replaces the prompt; `additionalContext` is appended to it after a blank line; then
 *   `userPromptTransformed` {prompt, transformedPrompt}: `modifiedTransformedPrompt` replaces
 *   what the model reads.
 * The context messages are `user.message` events with source `hook`, so a resume reads them too.
 * - `agentStop` {stopReason, transcriptPath, stop_hook_active} when a prompt ends (not on
 *   cancel or error): `decision: "block"` goes on with `reason` as a user message (source
 *   `hook`), at most {@link MAX_AGENT_STOP_BLOCKS} times in a row.
 * - `errorOccurred` {error, errorContext: "model_call", recoverable} when a model request of a
 *   prompt failed after turnloop's own retries, before the failure ends the prompt
 *   (error-hook.ts; each output field: protocol/hooks.ts `ErrorOccurredOutput`).
 *   Not for a tool's failure: the Copilot runtime describes its `hooks.errorOccurred` setting as
 *   "Hooks that run when a model call fails" (the strings of @github/copilot-sdk-linux-x64
 *   1.0.14's `prebuilds/linux-x64/runtime.node`); a tool's failure has `postToolUseFailure`.
 * - `sessionEnd` {reason: "user_exit"} on `session.detach` / `session.destroy`; recorded only.
 */

import type { ModelFailureCallback } from "../agent/decide-next.js";
import type { CallNotRunCallback } from "../agent/tool-calls.js";
import { errorMessage } from "../events/errors.js";
import type { EventInput, HookType, JsonObject, JsonValue } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { Authorize } from "../permissions/permission-gate.js";
import { hookOutputProblem } from "../protocol/hook-outputs.js";
import type {
  AgentStopOutput,
  PostToolUseFailureOutput,
  PostToolUseOutput,
  PromptHookOutput,
  SessionStartOutput,
  UserPromptTransformedOutput,
} from "../protocol/hooks.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/define-tool.js";
import { askErrorOccurred } from "./error-hook.js";
import { resultTypeOf } from "./tool-result-type.js";

/** Consecutive `agentStop` blocks honoured before the runtime stops anyway. */
export const MAX_AGENT_STOP_BLOCKS = 3;

/**
 * What a hook call came to: the app's answer (an object, or undefined for no opinion), or why it
 * failed (it threw, timed out, was cancelled, or gave an answer its check refused).
 */
export type HookAnswer =
  | { answered: true; output: JsonObject | undefined }
  | { answered: false; reason: string };

/** Sends `hooks.invoke` to the app; resolves with its `output`. */
export type InvokeHook = (
  hookType: HookType,
  input: JsonObject,
  signal: AbortSignal | undefined,
) => Promise<JsonValue | undefined>;

/** The session side of hook calls. */
export interface HookHost {
  sessionId: string;
  cwd: string;
  emit(event: EventInput): void;
  /** Whether the app registered hooks (`hooks: true`). */
  enabled(): boolean;
  invoke: InvokeHook;
}

/** The gates a `preToolUse` decision picks from. */
export interface Gates {
  /** The session's policy, asking the app or applying the default. */
  normal: Authorize;
  /** `allow`: everything runs except what deny rules forbid. */
  allowed: Authorize;
  /** `ask`: no allow rules and no allow-all, so every call (judged as mutating) is asked about. */
  ask: Authorize;
}

/** Calls hooks for one session and records them. */
export class HookRunner {
  /**
   * `additionalContext` from `preToolUse`, keyed by the input object the gate's answer hands to
   * the tool: it goes with that call only, and is gone with it when the call is denied or never
   * runs (a WeakMap holds nothing alive).
   */
  private readonly contexts = new WeakMap<object, string>();
  /** The wrapper of each tool ({@link wrapTool}). */
  private readonly wrapped = new WeakMap<AnyTool, AnyTool>();

  constructor(private readonly host: HookHost) {}

  /**
   * Calls `hookType` with `input` (plus `sessionId`, `timestamp` in ms and `cwd`) and records it.
   * An answer not of the hook's shape (protocol/hook-outputs.ts) is a failure: no part of it is
   * followed.
   * @returns the app's output when it is an object of its hook's shape; undefined for no opinion
   * or failure.
   */
  async call(
    hookType: HookType,
    input: JsonObject,
    signal?: AbortSignal,
  ): Promise<JsonObject | undefined> {
    const check = (output: JsonValue) => hookOutputProblem(hookType, output);
    const answer = await this.answer(hookType, input, signal, check);
    return answer.answered ? answer.output : undefined;
  }

  /**
   * {@link call}, telling a failure apart from no opinion. An answer `check` refuses (its
   * problem, in words) is a failure too, recorded with the answer: `hook.end` has `success:
   * false`, `error.message` the problem and `output` what the app gave.
   */
  async answer(
    hookType: HookType,
    input: JsonObject,
    signal?: AbortSignal,
    check?: (output: JsonValue) => string | undefined,
  ): Promise<HookAnswer> {
    if (!this.host.enabled()) {
      return { answered: true, output: undefined };
    }
    const hookInvocationId = randomUUID();
    const wireInput = {
      sessionId: this.host.sessionId,
      timestamp: Date.now(),
      cwd: this.host.cwd,
      ...input,
    };
    this.host.emit({ type: "hook.start", data: { hookInvocationId, hookType, input: wireInput } });
    const ended = { hookInvocationId, hookType };
    try {
      const output = (await this.host.invoke(hookType, wireInput, signal)) ?? null;
      const problem = check?.(output);
      if (problem !== undefined) {
        const error = { message: problem };
        this.host.emit({ type: "hook.end", data: { ...ended, success: false, output, error } });
        return { answered: false, reason: problem };
      }
      this.host.emit({ type: "hook.end", data: { ...ended, success: true, output } });
      return { answered: true, output: isObject(output) ? output : undefined };
    } catch (error) {
      const message = errorMessage(error);
      this.host.emit({ type: "hook.end", data: { ...ended, success: false, error: { message } } });
      return { answered: false, reason: message };
    }
  }

  /** Keeps `preToolUse`'s `additionalContext` for the call that runs with `input`. */
  keepContext(input: object, context: string): void {
    this.contexts.set(input, context);
  }

  /**
   * A prompt's text through `userPromptSubmitted` (`modifiedPrompt` replaces it,
   * `additionalContext` is appended after a blank line), then `userPromptTransformed` {prompt as
   * the first left it, transformedPrompt: what the model would read} (`modifiedTransformedPrompt`
   * replaces that), in Copilot's order.
   * @returns what the model reads as the prompt and the log keeps.
   */
  async prompt(text: string, signal: AbortSignal): Promise<string> {
    const output = (await this.call("userPromptSubmitted", { prompt: text }, signal)) as
      | PromptHookOutput
      | undefined;
    const prompt = typeof output?.modifiedPrompt === "string" ? output.modifiedPrompt : text;
    const context = output?.additionalContext;
    const transformedPrompt =
      typeof context === "string" && context !== "" ? `${prompt}\n\n${context}` : prompt;
    const transformed = (await this.call(
      "userPromptTransformed",
      { prompt, transformedPrompt },
      signal,
    )) as UserPromptTransformedOutput | undefined;
    const replaced = transformed?.modifiedTransformedPrompt;
    return typeof replaced === "string" ? replaced : transformedPrompt;
  }

  /**
   * `sessionStart`: its `additionalContext`, which the model reads as a user message of its own
   * just before the prompt (Copilot's snapshot `hooks_extended/should_invoke_sessionstart_hook`);
   * undefined when it gave none.
   */
  async sessionStart(input: JsonObject, signal: AbortSignal): Promise<string | undefined> {
    const output = (await this.call("sessionStart", input, signal)) as
      | SessionStartOutput
      | undefined;
    const context = output?.additionalContext;
    return typeof context === "string" && context !== "" ? context : undefined;
  }

  /**
   * A call answered with an error without running, as the Copilot CLI hooks a call of a tool that
   * does not exist (the Copilot SDK's
   * `hooks_extended/should_invoke_posttoolusefailure_hook_for_failed_tool_result`, whose
   * `postToolUseFailure` gets "Tool 'view' does not exist…"): `preToolUse` (recorded, its output
   * unused), then `postToolUseFailure` with the result the model reads as its `error`, whose
   * guidance goes with that result. So too a call whose arguments are no JSON, fail the tool's
   * schema or were cut off: a failure the model reads, which an app's audit must not miss (the
   * reference names no order for those; this is the one Copilot has for a tool that is missing).
   */
  readonly callNotRun: CallNotRunCallback = async ({ toolCall, message, signal, start }) => {
    const toolArgs = toolCall.arguments;
    await this.call("preToolUse", { toolName: toolCall.name, toolArgs }, signal);
    start();
    if (!this.host.enabled() || signal.aborted) {
      return [];
    }
    const failed = { content: message, isError: true };
    const guided = await this.afterFailure(toolCall.name, toolArgs, failed, signal);
    return guided.effects ?? [];
  };

  /** `errorOccurred` for a failed model request, before it ends the prompt (error-hook.ts). */
  readonly modelFailure: ModelFailureCallback = (failure, signal) =>
    askErrorOccurred(this, (event) => this.host.emit(event), failure, signal);

  /** `agentStop`: the follow-up message when the app blocks the stop, else undefined. */
  async agentStop(input: JsonObject, signal: AbortSignal): Promise<string | undefined> {
    const output = (await this.call("agentStop", input, signal)) as AgentStopOutput | undefined;
    if (output?.decision !== "block") {
      return undefined;
    }
    return typeof output.reason === "string" && output.reason !== "" ? output.reason : "Continue.";
  }

  /**
   * `tool` with `preToolUse`'s `additionalContext` appended and `postToolUse(Failure)` called;
   * one wrapper per tool, made once.
   */
  wrapTool(tool: AnyTool): AnyTool {
    let wrapped = this.wrapped.get(tool);
    if (wrapped === undefined) {
      wrapped = this.withHooks(tool);
      this.wrapped.set(tool, wrapped);
    }
    return wrapped;
  }

  private withHooks(tool: AnyTool): AnyTool {
    const host = this.host;
    return {
      ...tool,
      // The app's postToolUse hook runs inside the call, so the call may change something.
      get changesNothing() {
        return tool.changesNothing === true && !host.enabled();
      },
      execute: async (input: unknown, context: ToolContext): Promise<ToolResult> => {
        const preContext = isObjectInput(input) ? this.contexts.get(input) : undefined;
        const result = await tool.execute(input, context);
        const withContext = appendContext(result, preContext);
        if (!this.host.enabled() || context.signal.aborted) {
          return withContext;
        }
        return this.afterTool(tool.name, input, withContext, context);
      },
    };
  }

  private async afterTool(
    toolName: string,
    input: unknown,
    result: ToolResult,
    context: ToolContext,
  ): Promise<ToolResult> {
    const toolArgs = (isObject(input) ? input : {}) as JsonObject;
    const resultType = resultTypeOf(toolName, result, context.toolCallId);
    switch (resultType) {
      case "failure":
        return this.afterFailure(toolName, toolArgs, result, context.signal);
      case "denied":
      case "rejected":
      case "timeout":
        // Copilot calls neither post-tool hook for these (`PostToolUseFailureHandler`'s note).
        return result;
      case "success":
        break;
      default: {
        const unhandled: never = resultType;
        return unhandled;
      }
    }
    const toolResult = { textResultForLlm: result.content, resultType: "success" };
    const output = (await this.call(
      "postToolUse",
      { toolName, toolArgs, toolResult },
      context.signal,
    )) as PostToolUseOutput | undefined;
    const modified = output?.modifiedResult;
    const replaced =
      typeof modified === "string"
        ? { ...result, content: modified }
        : isObject(modified) && typeof modified.textResultForLlm === "string"
          ? { ...result, content: modified.textResultForLlm }
          : result;
    return appendContext(replaced, output?.additionalContext);
  }

  /**
   * `postToolUseFailure` {toolName, toolArgs, error}: `error` is the text the model reads as the
   * call's result; the result stays as it is, with the hook's guidance ({@link withGuidance}).
   */
  private async afterFailure(
    toolName: string,
    toolArgs: JsonObject,
    result: ToolResult,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const failure = { toolName, toolArgs, error: result.content };
    const output = (await this.call("postToolUseFailure", failure, signal)) as
      | PostToolUseFailureOutput
      | undefined;
    return withGuidance(result, toolName, output?.additionalContext);
  }
}

/**
 * A failed result with `postToolUseFailure`'s `additionalContext`: the result stays as it was
 * (Copilot honours no `modifiedResult` there) and the model reads the guidance as a user message
 * after the batch's results, in Copilot's words (snapshot
 * `hooks_extended/should_invoke_posttoolusefailure_hook_for_failed_tool_result`).
 */
function withGuidance(result: ToolResult, toolName: string, context: unknown): ToolResult {
  if (typeof context !== "string" || context === "") {
    return result;
  }
  const content = `Tool "${toolName}" failed. Additional guidance from postToolUseFailure hooks:\n${context}`;
  return { ...result, effects: [...(result.effects ?? []), { type: "follow_up", content }] };
}

function appendContext(result: ToolResult, context: unknown): ToolResult {
  if (typeof context !== "string" || context === "") {
    return result;
  }
  return { ...result, content: `${result.content}\n\n${context}` };
}

function isObjectInput(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
