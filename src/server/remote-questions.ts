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
 * MCP tool: no paths). The change a `create` or `edit` would make, which the owner's question
 * takes from the tool's check, the follower reads from the file itself (`followerChange`).
 */

import { resolve } from "node:path";
import type { FileChange, JsonObject, SessionEvent } from "../events/events.js";
import type { AnyTool } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import { readProjectFile } from "../tools/project-file.js";
import { replaceOnce } from "../tools/text-replacement.js";
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
    const input = parsed?.success === true ? parsed.data : call.arguments;
    const path = tool?.scope?.(input, this.#cwd).paths[0];
    return {
      tool: parsed?.success === true ? tool : undefined,
      input,
      arguments: call.arguments,
      external: false,
      change:
        path === undefined ? undefined : followerChange(call.name, input, resolve(this.#cwd, path)),
    };
  }
}

/** Bytes of a file read to show the diff of a change to it; the follower waits on this read. */
const MAX_READ_BYTES = 1024 * 1024;

/**
 * The change a `create` or `edit` of `fileName` would make, as a follower sees it: the owner's
 * check found it (server/permissions.ts), but the log does not hold it, so the file is read here,
 * as UTF-8, up to {@link MAX_READ_BYTES}, by tools/project-file.ts `readProjectFile` (a FIFO is
 * refused, never read). Undefined when the file cannot be read so, or `old_str` does not match
 * exactly once.
 */
function followerChange(
  toolName: string,
  input: unknown,
  fileName: string,
): FileChange | undefined {
  const text = (key: string): string | undefined => {
    const value = (input as Record<string, unknown> | null)?.[key];
    return typeof value === "string" ? value : undefined;
  };
  const file = readProjectFile(fileName, { maxBytes: MAX_READ_BYTES, overLimit: "refuse" });
  const existing = file.kind === "read" ? file.bytes.toString("utf8") : undefined;
  const fileText = text("file_text");
  if (toolName === "create" && fileText !== undefined) {
    return { path: fileName, oldText: existing ?? null, newText: fileText };
  }
  const [oldText, newText] = [text("old_str"), text("new_str")];
  if (toolName !== "edit" || existing === undefined || !oldText || newText === undefined) {
    return undefined;
  }
  const replacement = replaceOnce(existing, oldText, newText);
  return replacement.kind === "replaced"
    ? { path: fileName, oldText: existing, newText: replacement.text }
    : undefined;
}
