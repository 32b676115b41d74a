/**
 * The check of every session's log after a many-sessions run (issue 26: "no event lost or
 * reordered (check every log)"). For each session, in `$TURNLOOP_HOME/session-state/<id>/events.jsonl`:
 * - the sequence is contiguous: every line parses, and each event's `parentId` is the id of the
 *   line before it (`null` on the first line), so no line is missing, doubled or out of place;
 * - every `tool.execution_start` has exactly one `tool.execution_complete` with its `toolCallId`,
 *   after it, and no completion lacks its start;
 * - the persisted events the client received (`session.event` notifications, in arrival order;
 *   `assistant.usage` too, which the wire marks ephemeral) are the log's events in the log's order
 *   (compared by event id; the wire sends a reply's `assistant.usage` before its
 *   `assistant.message`, as Copilot does, src/server/usage-order.ts: the pair is put back in the
 *   log's order first), except a last
 *   `session.shutdown`: the server writes it as it closes the session, which it may do after the
 *   client has stopped reading;
 * - with `shutdownExpected` (the server closed every session and exited by itself), the log ends
 *   with exactly one `session.shutdown`, so every session's count of events is exact.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inLogOrder } from "../dist/server/usage-order.js";

/**
 * Records the events a client received, per session, for {@link checkSessionLogs}.
 * @returns {{record: (sessionId: string, event: any) => void,
 *   bySession: Map<string, Array<{id: string, type: string, ephemeral: boolean, at: number}>>}}
 */
export function clientEventRecorder() {
  /** @type {Map<string, Array<{id: string, type: string, ephemeral: boolean, at: number}>>} */
  const bySession = new Map();
  return {
    bySession,
    record(sessionId, event) {
      const events = bySession.get(sessionId) ?? [];
      bySession.set(sessionId, events);
      events.push({
        id: String(event?.id),
        type: String(event?.type),
        ephemeral: event?.ephemeral === true,
        // The event's own timestamp (ms, the server's clock), NaN when absent.
        at: Date.parse(event?.timestamp ?? ""),
      });
    },
  };
}

/**
 * Events the SDK face marks `ephemeral: true` although the log keeps them: `assistant.usage`,
 * which Copilot's wire types as always ephemeral (src/server/wire-events.ts) while turnloop reads
 * its tokens and cost back from the log.
 */
const LOGGED_THOUGH_EPHEMERAL = new Set(["assistant.usage"]);

/**
 * Whether a received event is one the log holds: not ephemeral, or ephemeral on the wire only.
 * @param {{type: string, ephemeral: boolean}} event
 */
function isLogged(event) {
  return !event.ephemeral || LOGGED_THOUGH_EPHEMERAL.has(event.type);
}

/**
 * The problems of one session's log lines, against what its client saw.
 * @param {string} sessionId
 * @param {string} text The whole `events.jsonl`.
 * @param {Array<{id: string, type: string, ephemeral: boolean}>} received
 * @param {{shutdownExpected?: boolean}} [options]
 * @returns {{events: number, problems: string[]}}
 */
export function checkSessionLog(sessionId, text, received, options = {}) {
  const problems = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") {
    lines.pop();
  } else {
    problems.push(`${sessionId}: the last line has no newline`);
  }
  /** @type {string[]} */
  const ids = [];
  /** @type {Map<string, {starts: number, completions: number}>} */
  const tools = new Map();
  let previousId = null;
  let lastType = "";
  let shutdowns = 0;
  for (const [index, line] of lines.entries()) {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      problems.push(`${sessionId}: line ${index + 1} is not JSON`);
      previousId = undefined;
      continue;
    }
    if (previousId !== undefined && event.parentId !== previousId) {
      problems.push(
        `${sessionId}: line ${index + 1} (${event.type}) has parentId ${event.parentId}, expected ${previousId}`,
      );
    }
    previousId = event.id;
    lastType = event.type;
    if (event.type === "session.shutdown") {
      shutdowns++;
    }
    ids.push(String(event.id));
    const toolCallId = event.data?.toolCallId;
    if (event.type === "tool.execution_start" || event.type === "tool.execution_complete") {
      const tool = tools.get(toolCallId) ?? { starts: 0, completions: 0 };
      tools.set(toolCallId, tool);
      if (event.type === "tool.execution_start") {
        tool.starts++;
      } else if (tool.starts === 0) {
        problems.push(`${sessionId}: tool call ${toolCallId} completes before it starts`);
      } else {
        tool.completions++;
      }
    }
  }
  for (const [toolCallId, tool] of tools) {
    if (tool.starts !== 1 || tool.completions !== 1) {
      problems.push(
        `${sessionId}: tool call ${toolCallId} has ${tool.starts} start(s) and ${tool.completions} completion(s)`,
      );
    }
  }
  if (options.shutdownExpected && (shutdowns !== 1 || lastType !== "session.shutdown")) {
    problems.push(
      `${sessionId}: ${shutdowns} session.shutdown event(s), the last event is ${lastType}; expected one, last`,
    );
  }
  const events = ids.length;
  const seen = inLogOrder(received.filter(isLogged)).map((event) => event.id);
  if (lastType === "session.shutdown" && seen.at(-1) !== ids.at(-1)) {
    ids.pop();
  }
  const firstDifference = ids.findIndex((id, index) => seen[index] !== id);
  if (firstDifference !== -1 || seen.length !== ids.length) {
    const at = firstDifference === -1 ? Math.min(ids.length, seen.length) : firstDifference;
    problems.push(
      `${sessionId}: the client saw ${seen.length} persisted events, the log holds ${ids.length}; first difference at event ${at + 1}`,
    );
  }
  return { events, problems };
}

/**
 * Checks the log of every session the client used (see the module comment).
 * @param {string} home TURNLOOP_HOME of the server.
 * @param {Iterable<string>} sessionIds
 * @param {Map<string, Array<{id: string, type: string, ephemeral: boolean}>>} receivedBySession
 * @param {{shutdownExpected?: boolean}} [options] See {@link checkSessionLog}.
 * @returns {{sessions: number, events: number, problems: string[]}}
 */
export function checkSessionLogs(home, sessionIds, receivedBySession, options = {}) {
  const problems = [];
  let sessions = 0;
  let events = 0;
  for (const sessionId of sessionIds) {
    sessions++;
    let text;
    try {
      text = readFileSync(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
    } catch (error) {
      problems.push(`${sessionId}: no log (${error instanceof Error ? error.message : error})`);
      continue;
    }
    const checked = checkSessionLog(
      sessionId,
      text,
      receivedBySession.get(sessionId) ?? [],
      options,
    );
    events += checked.events;
    problems.push(...checked.problems);
  }
  return { sessions, events, problems };
}
