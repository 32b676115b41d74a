/**
 * The Copilot SDK's `session.permissions.pendingRequests`, `resetSessionApprovals` and `modifyRules` (names, params
 * and results of the SDK's generated `rpc.d.ts`): they replace the session's grants, the rules
 * its "always" answers recorded (`/permissions` lists them on the other faces), by appending
 * `session.grants_changed`, so the change survives resume. Location-scoped rules are the
 * project's `.turnloop/config.json` `permissions`, which these methods do not write.
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import { parseConfiguredRule } from "../permissions/permission-mode.js";
import type { ClientConnection } from "./connection.js";
import { invalidParams, parseParams, sessionIdSchema, sessionOnlyParams } from "./params.js";
import type { ServerSession } from "./server-session.js";
import { openSession } from "./session-methods.js";

const resetParams = z.looseObject({
  sessionId: sessionIdSchema,
  includeLocation: z.boolean().optional(),
});
/** Copilot's `PermissionRule`: a kind (turnloop: a tool name or `mcp`) and its argument. */
const ruleSchema = z.looseObject({ kind: z.string().min(1), argument: z.string().nullable() });
const modifyParams = z.looseObject({
  sessionId: sessionIdSchema,
  scope: z.enum(["session", "location"]),
  add: z.array(ruleSchema).optional(),
  remove: z.array(ruleSchema).optional(),
  removeAll: z.boolean().optional(),
});

/** `{kind: "bash", argument: "git status"}` → `bash(git status)`; a null argument: the kind. */
function ruleText(rule: z.infer<typeof ruleSchema>): string {
  return rule.argument === null ? rule.kind : `${rule.kind}(${rule.argument})`;
}

/** Records `allow` and `deny` as the session's grants from now on. */
function replaceGrants(session: ServerSession, allow: string[], deny: string[]): void {
  session.session.emit({ type: "session.grants_changed", data: { allow, deny } });
}

/**
 * `session.permissions.resetSessionApprovals {includeLocation?}` → `{success: true}`: drops every
 * grant of the session; the next call that needs approval asks again.
 */
export function resetApprovalsMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.permissions.resetSessionApprovals";
  const { sessionId } = parseParams(method, resetParams, raw);
  replaceGrants(openSession(connection.server, sessionId), [], []);
  return { success: true };
}

/**
 * `session.permissions.modifyRules {scope: "session", add?, remove?, removeAll?}` →
 * `{success: true}`: `add` joins the session's allow grants, then `remove` (or `removeAll`: every
 * allow grant) leaves them; deny grants stay. An added rule is checked as the flags' and config
 * files' rules are (permissions/permission-mode.ts `parseConfiguredRule`): one naming another
 * agent's tool (`Bash(rm *)`, `shell(rm)`, `Read`) matches no call, so it is refused naming the
 * rule meant.
 * @throws invalidParams for scope `location` or an added rule turnloop cannot read or refuses;
 *   then none of the batch is applied.
 */
export function modifyRulesMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.permissions.modifyRules";
  const params = parseParams(method, modifyParams, raw);
  const session = openSession(connection.server, params.sessionId);
  if (params.scope === "location") {
    throw invalidParams(
      `${method}: location rules are not supported by turnloop: add them to the project's .turnloop/config.json (permissions.allow)`,
    );
  }
  const added = (params.add ?? []).map(ruleText);
  const removed = new Set((params.remove ?? []).map(ruleText));
  for (const text of added) {
    try {
      parseConfiguredRule(text);
    } catch (error) {
      throw invalidParams(`${method}: ${errorMessage(error)}`);
    }
  }
  const { grants } = session.session;
  const allow = [...new Set([...grants.allow.map((rule) => rule.text), ...added])];
  const kept = params.removeAll === true ? [] : allow.filter((text) => !removed.has(text));
  replaceGrants(
    session,
    kept,
    grants.deny.map((rule) => rule.text),
  );
  return { success: true };
}

/**
 * `session.permissions.pendingRequests` → `{items: [{requestId, request}]}` (Copilot's
 * `PendingPermissionRequestList`): the questions asked and not answered yet, `request` being the
 * `permissionRequest` their `permission.requested` event carried; an app that resumed a session
 * with a question kept for it (pending work) answers it with `handlePendingPermissionRequest`.
 */
export function pendingRequestsMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.permissions.pendingRequests", sessionOnlyParams, raw);
  return { items: openSession(connection.server, sessionId).permissions.pendingRequests() };
}
