/**
 * Copilot's `permissionRequest` (the SDK's `PermissionRequest`, `dist/types.d.ts`), the object a
 * Copilot SDK app's `onPermissionRequest` gets, for a call at the permission gate: its kind from
 * the tool's, and that kind's fields (`shell`: shell-request.ts, `write`: write-request.ts).
 */

import { resolve } from "node:path";
import type { FileChange, JsonObject, SessionEventOf } from "../events/events.js";
import type { CommandConfinement } from "../permissions/permission-mode.js";
import type { PermissionKind, WirePermissionRequest } from "../protocol/copilot.js";
import type { AnyTool } from "../tools/define-tool.js";
import { shellRequestFields } from "./shell-request.js";
import { writeRequestFields } from "./write-request.js";

/** What the server knows about a call waiting at the gate, to describe it on the wire. */
export interface CallDetails {
  /**
   * `undefined` when the tool is not known here: a call on another worker (remote-questions.ts)
   * to a tool that is not one of turnloop's built-in ones.
   */
  tool: AnyTool | undefined;
  input: unknown;
  arguments: JsonObject;
  /** Whether it is an app's custom tool. */
  external: boolean;
  /**
   * The whole-file change the tool's check found before the question (tools/define-tool.ts
   * `Tool.check`: an `edit`'s or a `create`'s); absent when it found none to show (a file too
   * large) or made none (a call on another worker, remote-questions.ts).
   */
  change?: FileChange | undefined;
}

/**
 * Copilot's `permissionRequest` for a call at the gate (see {@link WirePermissionRequest}); a
 * command's carries `sandbox`, where it would run (`confinement`), as ACP's question and the
 * terminal's show it.
 */
export function wirePermissionRequest(
  event: SessionEventOf<"permission.requested">["data"],
  details: CallDetails | undefined,
  cwd: string,
  confinement?: CommandConfinement,
): WirePermissionRequest {
  const scope =
    details === undefined ? undefined : (details.tool?.scope?.(details.input, cwd) ?? undefined);
  const paths = (scope?.paths ?? []).map((path) => resolve(cwd, path));
  const args = details?.arguments ?? {};
  const common = commonFields(event, args, paths, scope?.command, confinement);
  const kind = permissionKind(event.kind, details?.external === true);
  switch (kind) {
    case "shell": {
      const outside = event.outsideSandbox;
      const fields = shellRequestFields(scope?.command ?? "", outside !== undefined);
      return { ...common, kind, ...sandboxBypassFields(outside), ...fields };
    }
    case "write": {
      const fileName = paths[0] ?? "";
      const write = writeRequestFields(
        details?.tool?.name,
        details?.input,
        fileName,
        details?.change,
      );
      return { ...common, kind, fileName, canOfferSessionApproval: true, ...write };
    }
    case "read":
      return { ...common, kind, path: paths[0] ?? "" };
    case "url":
      return { ...common, kind, url: typeof args.url === "string" ? args.url : "" };
    case "mcp": {
      const origin = details?.tool?.mcp;
      return {
        ...common,
        kind,
        serverName: origin?.serverName ?? "",
        toolName: origin?.toolName ?? event.toolName,
        toolTitle: event.title,
        args,
        readOnly: false,
      };
    }
    case "custom-tool":
      return {
        ...common,
        kind,
        toolDescription: details?.tool?.description ?? "",
        args,
      };
  }
}

/** The fields every kind of Copilot `permissionRequest` carries (the call, its paths, its command). */
function commonFields(
  event: SessionEventOf<"permission.requested">["data"],
  args: JsonObject,
  paths: string[],
  command: string | undefined,
  confinement: CommandConfinement | undefined,
) {
  return {
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    intention: event.title,
    toolKind: event.kind,
    arguments: args,
    paths,
    ...(command === undefined ? {} : { command }),
    ...(command === undefined || confinement === undefined ? {} : { sandbox: confinement }),
  };
}

/**
 * The Copilot wire's marks of a question to run, outside the sandbox, a command it stopped
 * (`outside`: why it was stopped); none for any other question.
 */
function sandboxBypassFields(outside: string | undefined): {
  requestSandboxBypass?: true;
  requestSandboxBypassReason?: string;
} {
  return outside === undefined
    ? {}
    : { requestSandboxBypass: true, requestSandboxBypassReason: outside };
}

function permissionKind(toolKind: string, external: boolean): PermissionKind {
  if (external) {
    return "custom-tool";
  }
  switch (toolKind) {
    case "execute":
      return "shell";
    case "edit":
    case "delete":
    case "move":
      return "write";
    case "read":
    case "search":
      return "read";
    case "fetch":
      return "url";
    case "mcp":
      return "mcp";
    default:
      return "custom-tool";
  }
}
