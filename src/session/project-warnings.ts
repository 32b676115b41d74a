/**
 * An untrusted project's warnings told in the session itself, for the faces whose stderr nobody
 * reads: editors hide `turnloop acp`'s, and an app of the SDK server reads events, not its log.
 * The held keys of the project's `.turnloop/config.json` (project-holds.ts, carried by the run
 * config as {@link RunConfig.heldWarning}) and the MCP servers of its `.mcp.json` left waiting
 * (mcp-servers.ts) are each recorded once per open session as a `session.warning` (`warningType`
 * `project_not_trusted`), which ACP shows as a notice or an agent message (not replayed by
 * `session/load`: {@link isProjectWarning}) and an SDK app receives as a session event. `-p` and the interactive session say both on stderr or their screen instead.
 */

import type { SessionEvent } from "../events/events.js";
import { untrustedServersWarning } from "./mcp-servers.js";
import type { RunConfig } from "./run-config.js";
import type { Session } from "./session.js";

/** The `warningType` of these warnings. */
export const PROJECT_NOT_TRUSTED = "project_not_trusted";

/** Sessions whose warnings were recorded by this process: once per open session. */
const warned = new WeakSet<Session>();

/**
 * Emits `session`'s project warnings (held keys of `config`, then its MCP servers waiting for
 * trust: call it once its MCP servers were gathered) and adds them to its `openingEvents`, so a
 * face that sends those (the SDK server) or announces them (ACP) shows them. Does nothing for a
 * session it was called for before, or when there is nothing to say.
 * @returns the events emitted, in order.
 */
export function recordProjectWarnings(session: Session, config: RunConfig): SessionEvent[] {
  if (warned.has(session)) {
    return [];
  }
  warned.add(session);
  const waiting = session.mcpWaitingForTrust;
  const messages = [
    ...(config.heldWarning === undefined ? [] : [config.heldWarning]),
    ...(waiting === undefined ? [] : [untrustedServersWarning(waiting)]),
  ];
  const events = messages.map((message) =>
    session.emit({ type: "session.warning", data: { warningType: PROJECT_NOT_TRUSTED, message } }),
  );
  session.openingEvents.push(...events);
  return events;
}

/**
 * Whether an event of a log is one of these warnings: said when the session was opened then, so
 * a face replaying the log skips it (the opening that replays it records its own, once).
 */
export function isProjectWarning(event: SessionEvent): boolean {
  return event.type === "session.warning" && event.data.warningType === PROJECT_NOT_TRUSTED;
}
