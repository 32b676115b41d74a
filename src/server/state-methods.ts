/**
 * The Copilot SDK's session-state methods that map onto turnloop (metadata by id, `session.log`,
 * server `tools.list`, name, usage, plan, workspace, agents, shutdown). Names, params and results
 * are Copilot's (the `@github/copilot-sdk` 1.0.14 `dist/generated/rpc.d.ts`); what turnloop has no
 * counterpart for answers a clear error instead (see unsupported.ts).
 */

import { z } from "zod";
import { toolSpecifications } from "../agent/tool-specifications.js";
import type { EventInput } from "../events/events.js";
import type { SessionListEntry } from "../protocol/copilot.js";
import type { SessionSummary } from "../session/session-store.js";
import { firstPromptTitle } from "../session/session-title.js";
import { builtinTools } from "../tools/index.js";
import type { ClientConnection } from "./connection.js";
import { parseParams, sessionIdSchema, sessionOnlyParams } from "./params.js";
import { openSession } from "./session-methods.js";
import { metricsOnWire } from "./shutdown-metrics.js";
import { bareModelId } from "./wire-events.js";

/** `session.getMetadata {sessionId}` → `{session?}`: the `session.list` entry of that id. */
export async function metadataMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.getMetadata", sessionOnlyParams, raw);
  const summaries = await connection.server.host.list();
  const summary = summaries.find((candidate) => candidate.sessionId === sessionId);
  if (summary === undefined) {
    return {};
  }
  return { session: sessionListEntry(summary) };
}

/**
 * A stored session as `session.list` and `session.getMetadata` answer it (Copilot's
 * `SessionMetadata` wire shape, with `LocalSessionMetadataValue`'s `name` when the session was
 * given one; ISO-8601 times; `problem`, turnloop's, says why a damaged log has no prompt or model).
 */
export function sessionListEntry(summary: SessionSummary): SessionListEntry {
  const title = firstPromptTitle(summary);
  return {
    sessionId: summary.sessionId,
    startTime: summary.startTime ?? summary.lastActivity,
    modifiedTime: summary.lastActivity,
    isRemote: false,
    ...(title === null ? {} : { summary: title }),
    ...(summary.name === undefined ? {} : { name: summary.name }),
    ...(summary.cwd === null ? {} : { context: { cwd: summary.cwd } }),
    ...(summary.model === null ? {} : { model: summary.model }),
    turns: summary.turns,
    ...(summary.problem === undefined ? {} : { problem: summary.problem }),
    ...(summary.interrupted === true ? { interrupted: true } : {}),
  };
}

const logParams = z.looseObject({
  sessionId: sessionIdSchema,
  message: z.string(),
  level: z.enum(["info", "warning", "error"]).optional(),
  type: z.string().optional(),
  ephemeral: z.boolean().optional(),
  url: z.string().optional(),
  tip: z.string().optional(),
});

/**
 * `session.log {message, level?, type?, ephemeral?, url?, tip?}` → `{eventId}`: `session.info`,
 * `session.warning` or (level `error`) `session.error` with `errorType: "app"`, as Copilot emits
 * its events; stored in the log, or with `ephemeral: true` only sent to the attached apps (the
 * SDK's `LogRequest.ephemeral`: "not persisted to the session event log on disk").
 */
export function logMethod(connection: ClientConnection, raw: unknown) {
  const params = parseParams("session.log", logParams, raw);
  const served = openSession(connection.server, params.sessionId);
  const input = logEvent(params);
  const event = params.ephemeral === true ? served.announce(input) : served.session.emit(input);
  return { eventId: event.id };
}

/** The event `session.log` records for its level. */
function logEvent(params: z.infer<typeof logParams>): EventInput {
  const type = params.type ?? "notification";
  const url = params.url === undefined ? {} : { url: params.url };
  switch (params.level ?? "info") {
    case "warning":
      return {
        type: "session.warning",
        data: { warningType: type, message: params.message, ...url },
      };
    case "error":
      return { type: "session.error", data: { errorType: "app", message: params.message } };
    case "info":
      return {
        type: "session.info",
        data: {
          infoType: type,
          message: params.message,
          ...url,
          ...(params.tip === undefined ? {} : { tip: params.tip }),
        },
      };
  }
}

/** `tools.list {model?}` → `{tools}`: turnloop's built-in tools as the model is offered them. */
export function toolsListMethod() {
  const tools = toolSpecifications(builtinTools()).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
  return { tools };
}

/**
 * `session.usage.getMetrics` → Copilot's `UsageGetMetricsResult` (the Copilot SDK's
 * `dist/generated/rpc.d.ts`): per model (named bare, as on the rest of the wire) its requests
 * `{count, cost}` and usage, API time, start time, code changes and the last call's tokens, from
 * the same fold and the same reading as `session.shutdown` (shutdown-metrics.ts `metricsOnWire`);
 * `totalPremiumRequestCost` is the sum of the requests' costs (US dollars). Besides, turnloop's
 * session totals: tokens, and `requests` counted by the rule every face counts them
 * (usage-totals.ts: every `assistant.turn_start`, failed and cancelled ones included). Answered
 * from the open session's own fold of its stored events (session.ts `metrics`): the log is not read.
 */
export function usageMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.usage.getMetrics", sessionOnlyParams, raw);
  const { session } = openSession(connection.server, sessionId);
  const { metrics } = session;
  const totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let requests = 0;
  let cost = 0;
  // A session open here has its `session.start`, so every request is some model's.
  for (const usage of metrics.usage.byModel.values()) {
    requests += usage.requests;
    cost += usage.cost;
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.cacheReadTokens += usage.cacheReadTokens;
    totals.cacheWriteTokens += usage.cacheWriteTokens;
  }
  const { modelMetrics, codeChanges } = metricsOnWire(metrics, session.cwd);
  const bare = Object.entries(modelMetrics).map(([id, metric]) => [bareModelId(id), metric]);
  return {
    totalPremiumRequestCost: cost,
    totalUserRequests: metrics.userRequests,
    totalApiDurationMs: metrics.apiDurationMs,
    sessionStartTime: metrics.startTime ?? new Date(0).toISOString(),
    codeChanges: { ...codeChanges, filesModifiedCount: codeChanges.filesModified.length },
    modelMetrics: Object.fromEntries(bare),
    lastCallInputTokens: metrics.lastUsage.inputTokens ?? 0,
    lastCallOutputTokens: metrics.lastUsage.outputTokens ?? 0,
    ...totals,
    requests,
  };
}

/**
 * `session.plan.read` → `{exists, content}`: the last `update_plan` entries as a Markdown list
 * (`[x]` done, `[~]` in progress, `[ ]` pending).
 */
export async function planReadMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.plan.read", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  const { events } = await connection.server.host.readEvents(sessionId);
  const last = events.findLast((event) => event.type === "session.plan_updated");
  const entries = last?.type === "session.plan_updated" ? last.data.entries : [];
  if (entries.length === 0) {
    return { exists: false, content: "" };
  }
  const marks = { completed: "[x]", in_progress: "[~]", pending: "[ ]" } as const;
  const lines = entries.map((entry) => `- ${marks[entry.status]} ${entry.content}`);
  return { exists: true, content: lines.join("\n") };
}

/** `session.workspaces.getWorkspace` → the session's folder and working directory. */
export function workspaceMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.workspaces.getWorkspace", sessionOnlyParams, raw);
  const { session } = openSession(connection.server, sessionId);
  return { workspace: { id: session.id, path: session.directory, cwd: session.cwd } };
}

/** `session.agent.list` / `getCurrent`: turnloop has one agent and no custom agents. */
export function agentListMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.agent.list", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  return { agents: [] };
}

/** `session.agent.getCurrent` → `{agent: null}`: no custom agent is ever selected. */
export function agentCurrentMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.agent.getCurrent", sessionOnlyParams, raw);
  openSession(connection.server, sessionId);
  return { agent: null };
}

const shutdownParams = z.looseObject({
  sessionId: sessionIdSchema,
  type: z.enum(["routine", "error"]).optional(),
  reason: z.string().optional(),
});

/**
 * `session.shutdown {sessionId, type?: "routine" | "error", reason?}`: ends the app's use of the
 * session, as `session.detach` does; when that closes it, `session.shutdown` is recorded with
 * `shutdownType: type` (default `routine`) and, for `error`, `errorReason: reason`.
 */
export async function sessionShutdownMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId, type, reason } = parseParams("session.shutdown", shutdownParams, raw);
  const session = openSession(connection.server, sessionId);
  if (!session.othersAttachedThan(connection)) {
    connection.server.detached.add(sessionId);
  }
  const shutdownType = type ?? "routine";
  const errorReason =
    shutdownType === "error" && reason !== undefined ? { errorReason: reason } : {};
  await session.detach(connection, { shutdownType, ...errorReason });
  return { success: true };
}
