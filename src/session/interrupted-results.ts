/**
 * The results a session records for tool calls left without one (a crash, a kill, a failed
 * write): each an interrupted failure (DESIGN.md: every tool call gets exactly one result).
 */

import { interrupted } from "../agent/tool-calls.js";
import type { EventInput, ToolRequest } from "../events/events.js";

/** One `tool.execution_complete` (interrupted) per call of `pending`, in order. */
export function interruptedResults(pending: readonly ToolRequest[]): EventInput[] {
  return pending.map((toolCall) => {
    const { content } = interrupted(toolCall);
    const error = { message: content, code: "interrupted" as const };
    const data = { toolCallId: toolCall.toolCallId, toolName: toolCall.name };
    return {
      type: "tool.execution_complete",
      data: { ...data, success: false, result: { content }, error },
    };
  });
}
