/**
 * Copilot's `resultType` of a tool call's result (`ToolResultObject.resultType`: `success`,
 * `failure`, `rejected`, `denied`, `timeout`: the Copilot SDK's `ToolResultObject`),
 * which decides the post-tool hook an SDK app is called with (hooks.ts): `postToolUse` for
 * `success`, `postToolUseFailure` for `failure`, neither for the others (the Copilot SDK's
 * `PostToolUseFailureHandler`: "`rejected`, `denied`, and `timeout` results do not currently
 * trigger this hook either").
 */

import type { ToolResultType } from "../protocol/copilot.js";
import { readResult } from "../session/session-model/tool-call.js";
import { commandStop } from "../tools/bash.js";
import type { ToolResult } from "../tools/define-tool.js";

/** The `resultType` an app's tool answered with, kept by its result (external-tools.ts). */
const answered = new WeakMap<ToolResult, ToolResultType>();

/** Notes that `result` is what an app's tool answered with `resultType`. */
export function noteAnsweredType(result: ToolResult, resultType: ToolResultType): void {
  answered.set(result, resultType);
}

/**
 * The `resultType` of `result`, the result of a call of `toolName`: what an app's tool answered
 * when it came from one; `timeout` for a `bash` command stopped at its timeout (read as every
 * face reads it: tools/bash.ts `commandStop`); otherwise as the one fold reads the
 * `tool.execution_complete` the result becomes (session-model/tool-call.ts `readResult`), so the
 * hooks agree with every face: `completed` → `success`; `failed` (an error result, or a command
 * that exited non-zero or was killed by a signal) → `failure`; `denied` → `denied`, or `rejected`
 * when the user or app refused it.
 */
export function resultTypeOf(
  toolName: string,
  result: ToolResult,
  toolCallId: string,
): ToolResultType {
  const fromApp = answered.get(result);
  if (fromApp !== undefined) {
    return fromApp;
  }
  const stop = toolName === "bash" && result.isError ? commandStop(result.content) : undefined;
  if (stop?.reason.startsWith("timed out") === true) {
    return "timeout";
  }
  const code = result.errorCode ?? ("failed" as const);
  const error = result.isError
    ? { error: { message: result.errorMessage ?? result.content, code } }
    : {};
  const reading = readResult({
    toolCallId,
    toolName,
    success: !result.isError,
    result: { content: result.content },
    ...error,
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
  });
  switch (reading.status) {
    case "completed":
      return "success";
    case "failed":
      return "failure";
    case "denied":
      return result.errorCode === "rejected" ? "rejected" : "denied";
    case "interrupted":
      // Not from a tool's own result (only the loop interrupts a call); a failure if it were.
      return "failure";
    default: {
      const unhandled: never = reading.status;
      return unhandled;
    }
  }
}
