/**
 * How a session answers the runtime's `hooks.invoke` with the app's hook handlers
 * (src/protocol/hooks.ts describes each hook). A handler that throws is answered with an error,
 * which the runtime records (`hook.end` with `success: false` and the message): for most hooks
 * that is "no opinion", but `preToolUse`, a guard, fails closed, so the call is denied and the app
 * is told once per cause by a `TurnloopSdkWarning` process warning: it threw, it answered
 * something that is no decision ({@link preToolUseProblem}), or it did not answer in time. Any
 * other hook's answer not of its shape (protocol/hook-outputs.ts), which the runtime follows in no
 * part, is told too, once per hook and session.
 */

import { ResponseError } from "vscode-jsonrpc";
import { errorMessage } from "../events/errors.js";
import type { HookType, JsonObject, JsonValue } from "../events/events.js";
import { preToolUseProblem } from "../protocol/hooks.js";
import { describeValue, sdkWarning } from "./permission-answers.js";
import type { SessionHooks } from "./types.js";

const HOOK_HANDLERS: Record<HookType, keyof SessionHooks> = {
  preToolUse: "onPreToolUse",
  postToolUse: "onPostToolUse",
  postToolUseFailure: "onPostToolUseFailure",
  userPromptSubmitted: "onUserPromptSubmitted",
  userPromptTransformed: "onUserPromptTransformed",
  sessionStart: "onSessionStart",
  sessionEnd: "onSessionEnd",
  agentStop: "onAgentStop",
  errorOccurred: "onErrorOccurred",
};

/** JSON-RPC's "internal error": the app's handler failed. */
const HANDLER_FAILED = -32603;

/**
 * Why a `preToolUse` guard denied a call, one warning each per session; `invalid:<hook>` for
 * another hook's answer of the wrong shape.
 */
export type GuardFailure = "threw" | "invalid" | "timeout" | `invalid:${HookType}`;

/** A session's watch over its `preToolUse` guard. */
export interface GuardWatch {
  /** The causes this session has already warned about (added to by {@link answerHook}). */
  warned: Set<GuardFailure>;
  /** When the runtime stops waiting for a hook (ms; protocol/hooks.ts `hookTimeoutMs`). */
  timeoutMs: number;
}

/**
 * The answer to `hooks.invoke` of `hookType` with `input`: `{output}` from the app's handler, `{}`
 * for no opinion or no handler.
 * @param watch what the session warned about, and when a guard that has not answered is late.
 * @throws ResponseError (-32603) `<handler> threw: <message>` when the handler throws.
 */
export async function answerHook(
  hooks: SessionHooks | undefined,
  hookType: HookType,
  input: JsonObject,
  sessionId: string,
  watch: GuardWatch,
): Promise<{ output?: JsonValue }> {
  const name = HOOK_HANDLERS[hookType];
  const handler = hooks?.[name] as
    | ((input: JsonObject, context: { sessionId: string }) => unknown)
    | undefined;
  if (handler === undefined) {
    return {};
  }
  const guard = hookType === "preToolUse";
  const warnOnce = (cause: GuardFailure, message: string) => {
    if (guard && !watch.warned.has(cause)) {
      watch.warned.add(cause);
      sdkWarning(`${message}; a preToolUse guard that fails denies the call`);
    }
  };
  const late = setTimeout(
    () => warnOnce("timeout", `${name} did not answer within ${watch.timeoutMs} ms`),
    watch.timeoutMs,
  );
  late.unref();
  let output: unknown;
  try {
    output = await handler(input, { sessionId });
  } catch (error) {
    const message = `${name} threw: ${errorMessage(error)}`;
    warnOnce("threw", message);
    throw new ResponseError(HANDLER_FAILED, message);
  } finally {
    clearTimeout(late);
  }
  if (guard) {
    const problem = preToolUseProblem(output);
    if (problem !== undefined) {
      warnOnce("invalid", `${name} answered ${describeValue(output)}: ${problem}`);
    }
  } else {
    await warnOfShape(hookType, output, watch);
  }
  return output === undefined ? {} : { output: output as JsonValue };
}

/**
 * Warns, once per hook and session, of an answer to a hook other than `preToolUse` that is not of
 * its shape (protocol/hook-outputs.ts), which the runtime ignores.
 */
async function warnOfShape(hookType: HookType, output: unknown, watch: GuardWatch): Promise<void> {
  // zod is loaded already: the session's settings were checked with it (config-check.ts).
  const { hookOutputProblem } = await import("../protocol/hook-outputs.js");
  const problem = hookOutputProblem(hookType, output);
  if (problem !== undefined && !watch.warned.has(`invalid:${hookType}`)) {
    watch.warned.add(`invalid:${hookType}`);
    const name = HOOK_HANDLERS[hookType];
    sdkWarning(`${name} answered ${describeValue(output)}: ${problem}; the answer is ignored`);
  }
}
