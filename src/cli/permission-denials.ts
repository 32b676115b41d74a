import type { JsonObject, SessionEvent } from "../events/events.js";
import { refusedOutsideSandbox } from "../tools/bash.js";

/**
 * One refused tool call of a `-p` prompt, in the shape of Claude Code's `permission_denials`
 * entries of its `-p --output-format json` result (`tool_name`, `tool_use_id`, `tool_input`):
 * the tool's name, the call's id as the model gave it, and the arguments it was called with.
 */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: JsonObject;
}

/**
 * Collects the refused calls of a prompt from its events: a `tool.execution_complete` whose
 * error code is `denied` (no terminal to ask on, a deny rule) or `rejected` (the user said no),
 * or a `bash` command the sandbox stopped that was not run outside it (tools/bash.ts
 * `refusedOutsideSandbox`: it wrote outside the workspace or used the network, and nobody could
 * allow it or the user said no), with the arguments of its `tool.execution_start`. Holds the
 * arguments of the calls still open only.
 */
export class PermissionDenials {
  readonly list: PermissionDenial[] = [];
  private readonly openCalls = new Map<string, JsonObject>();

  readonly handle = (event: SessionEvent): void => {
    if (event.type === "tool.execution_start") {
      this.openCalls.set(event.data.toolCallId, event.data.arguments);
    } else if (event.type === "tool.execution_complete") {
      const { toolCallId, toolName, error } = event.data;
      const input = this.openCalls.get(toolCallId) ?? {};
      this.openCalls.delete(toolCallId);
      const content = event.data.result?.content;
      const stopped =
        toolName === "bash" && typeof content === "string" && refusedOutsideSandbox(content);
      if (error?.code === "denied" || error?.code === "rejected" || stopped) {
        this.list.push({ tool_name: toolName, tool_use_id: toolCallId, tool_input: input });
      }
    }
  };
}
