/**
 * Permission questions of a session followed from another worker (issue 22, remote-sessions.ts).
 * The owner's `permission.requested` and `permission.completed` are persisted events (the session
 * commits a question before it waits for the answer), so a follower receives them through the
 * store's subscription; here they get the wire-only fields a Copilot SDK app reads
 * (`permissionRequest`, `result.kind`; permissions.ts), described from the call's arguments as
 * stored in its `assistant.message`. The answer is sent to the owner through the inbox; the
 * owner applies the first answer and ignores later ones (`PendingPermissions.answer`).
 *
 * What the owner alone knows is left out of a follower's `permissionRequest`: where a command
 * would run (`sandbox`), and the scope of a tool that is not built in (an app's custom tool, an
 * MCP tool: no paths).
 */

import type { JsonObject, SessionEvent } from "../events/events.js";
import type { AnyTool } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import { type CallDetails, wirePermissionRequest } from "./permission-request.js";
import { completedKind } from "./permissions.js";

let builtInByName: ReadonlyMap<string, AnyTool> | undefined;

/** turnloop's built-in tool named `name`, if any. */
function builtInTool(name: string): AnyTool | undefined {
  builtInByName ??= new Map(builtinTools().map((tool) => [tool.name, tool]));
  return builtInByName.get(name);
}

/** The calls and open questions of one followed session, as its persisted events tell them. */
export class RemoteQuestions {
  readonly #cwd: string;
  /** Arguments of the tool calls asked for and not completed yet, by tool call id. */
  readonly #calls = new Map<string, { name: string; arguments: JsonObject }>();
  /** Request ids of the questions asked and not answered yet. */
  readonly #open = new Set<string>();

  /** @param cwd the session's working directory (its `session.start`), to resolve paths. */
  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Whether the question `requestId` was asked and its answer not seen yet. */
  isOpen(requestId: string): boolean {
    return this.#open.has(requestId);
  }

  /**
   * Notes what `event` says about calls and questions, and returns `wire` (the event as the wire
   * shows it) with the permission fields added.
   */
  wireEvent(event: SessionEvent, wire: object): object {
    if (event.type === "assistant.message") {
      for (const request of event.data.toolRequests) {
        this.#calls.set(request.toolCallId, { name: request.name, arguments: request.arguments });
      }
    } else if (event.type === "tool.execution_complete") {
      this.#calls.delete(event.data.toolCallId);
    } else if (event.type === "permission.requested") {
      this.#open.add(event.data.requestId);
      const details = this.#details(event.data.toolCallId);
      const permissionRequest = wirePermissionRequest(event.data, details, this.#cwd);
      return { ...wire, data: { ...event.data, permissionRequest } };
    } else if (event.type === "permission.completed") {
      this.#open.delete(event.data.requestId);
      return { ...wire, data: { ...event.data, result: { kind: completedKind(event.data) } } };
    }
    return wire;
  }

  #details(toolCallId: string): CallDetails | undefined {
    const call = this.#calls.get(toolCallId);
    if (call === undefined) {
      return undefined;
    }
    const tool = builtInTool(call.name);
    const parsed = tool?.input.safeParse(call.arguments);
    return {
      tool: parsed?.success === true ? tool : undefined,
      input: parsed?.success === true ? parsed.data : call.arguments,
      arguments: call.arguments,
      external: false,
    };
  }
}
