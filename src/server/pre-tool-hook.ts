/**
 * The session's permission path through the app's `preToolUse` hook (hooks.ts describes every
 * hook): its decision picks the gate, its `modifiedArgs` replace the arguments. A guard fails
 * closed: a `preToolUse` that throws, does not answer in time, or answers none of the decisions
 * of the Copilot SDK's `PreToolUseHookOutput` (src/protocol/hooks.ts `preToolUseProblem`) denies
 * the call, and the model reads why.
 */

import type { Authorize, PermissionAnswer } from "../permissions/permission-gate.js";
import { type PreToolUseOutput, preToolUseProblem } from "../protocol/hooks.js";
import type { Gates, HookRunner } from "./hooks.js";

/**
 * `gates` behind `preToolUse`. `modifiedArgs` become the call's input and arguments for the gate
 * (so a question shows what would run) and the input of its answer (so the tool runs them); as
 * with Copilot, the history keeps what the model asked: `tool.execution_start` logs the original
 * arguments.
 */
export function behindPreToolUse(
  hooks: Pick<HookRunner, "answer" | "keepContext">,
  gates: Gates,
): Authorize {
  return async (request): Promise<PermissionAnswer> => {
    const { tool, toolCall, signal } = request;
    const toolArgs = toolCall.arguments;
    const hookInput = { toolName: tool.name, toolArgs };
    const answer = await hooks.answer("preToolUse", hookInput, signal, preToolUseProblem);
    if (!answer.answered) {
      if (signal.aborted) {
        return { allowed: false, reason: "the request was cancelled" };
      }
      const reason = `the app's preToolUse hook failed (${answer.reason}), and a guard that fails denies the call`;
      return { allowed: false, reason };
    }
    const output = answer.output as PreToolUseOutput | undefined;
    let effective = request;
    if (output?.modifiedArgs !== undefined) {
      const parsed = tool.input.safeParse(output.modifiedArgs);
      if (!parsed.success) {
        return { allowed: false, reason: "the preToolUse hook gave arguments that do not fit" };
      }
      effective = {
        ...request,
        input: parsed.data,
        toolCall: { ...toolCall, arguments: output.modifiedArgs },
        start: () => request.start(toolArgs),
      };
    }
    const decided = await decide(output, gates, effective);
    const allowed = decided.allowed ? { ...decided, arguments: toolArgs } : decided;
    const context = output?.additionalContext;
    if (allowed.allowed && typeof context === "string" && isObject(allowed.input)) {
      hooks.keepContext(allowed.input, context);
    }
    return allowed;
  };
}

/** The gate `output`'s decision picks, or its refusal. */
function decide(
  output: PreToolUseOutput | undefined,
  gates: Gates,
  request: Parameters<Authorize>[0],
): Promise<PermissionAnswer> {
  const decision = output?.permissionDecision;
  switch (decision) {
    case "deny": {
      const reason = output?.permissionDecisionReason ?? "No reason provided";
      return Promise.resolve({ allowed: false, reason: `Denied by preToolUse hook: ${reason}` });
    }
    case "allow":
      return gates.allowed(request);
    case "ask":
      // Judged as if it could change things, so even a read inside the cwd is asked about.
      return gates.ask({ ...request, tool: { ...request.tool, mutates: true } });
    case undefined:
      return gates.normal(request);
    default: {
      const unchecked: never = decision;
      return unchecked;
    }
  }
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
