/**
 * An untrusted project's warnings, and those naming project files not read (in a folder between
 * the cwd and the project's root: `project_file_not_read`), told in the session itself, for the faces whose stderr nobody
 * reads: editors hide `turnloop acp`'s, and an app of the SDK server reads events, not its log.
 * The held keys of the project's `.turnloop/config.json` (project-holds.ts, carried by the run
 * config as {@link RunConfig.heldWarning}) and the MCP servers of its `.mcp.json` left waiting
 * (mcp-servers.ts) are each recorded once per open session as a `session.warning` (`warningType`
 * `project_not_trusted`), which ACP shows as a notice or a thought (not replayed by
 * `session/load`: {@link isProjectWarning}) and an SDK app receives as a session event. `-p` and the interactive session say both on stderr or their screen instead.
 */

import { warningLine } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import { untrustedServersWarning } from "./mcp-servers.js";
import type { RunConfig } from "./run-config.js";
import type { Session } from "./session.js";

/** The `warningType` of the warnings of an untrusted project. */
export const PROJECT_NOT_TRUSTED = "project_not_trusted";
/** The `warningType` of a project file in a folder between the cwd and the project's root. */
export const PROJECT_FILE_NOT_READ = "project_file_not_read";

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
    ...(config.unreadWarnings ?? []).map((message) => [PROJECT_FILE_NOT_READ, message] as const),
    ...(config.heldWarning === undefined ? [] : [config.heldWarning]).map(
      (message) => [PROJECT_NOT_TRUSTED, message] as const,
    ),
    ...(waiting === undefined ? [] : [untrustedServersWarning(waiting)]).map(
      (message) => [PROJECT_NOT_TRUSTED, message] as const,
    ),
  ];
  const events = messages.map(([warningType, message]) =>
    session.emit({ type: "session.warning", data: { warningType, message } }),
  );
  session.openingEvents.push(...events);
  return events;
}

/** The project warnings this process wrote to stderr: once each, however many sessions open. */
const logged = new Set<string>();

/**
 * Writes the warnings of the project a session opens in (its held config keys, project files not
 * read: `config`'s) to `log`, the stderr of `turnloop acp` (which an editor keeps as the agent's
 * log) or of the server, as README says they do: the start folder's (`startConfig`'s) were written
 * at start (cli/run.ts), another folder's (ACP `session/new {cwd}`, `session/load`, SDK
 * `createSession({workingDirectory})`, `resumeSession`) once per process. The MCP servers left
 * waiting are written where they are gathered (mcp-servers.ts `reportGathered`).
 */
export function logProjectWarnings(
  config: RunConfig,
  startConfig: RunConfig,
  log: (line: string) => void,
): void {
  const said = [...(startConfig.unreadWarnings ?? []), startConfig.heldWarning];
  for (const warning of [...(config.unreadWarnings ?? []), config.heldWarning]) {
    if (warning !== undefined && !said.includes(warning) && !logged.has(warning)) {
      logged.add(warning);
      log(warningLine(warning));
    }
  }
}

/**
 * Whether an event of a log is one of these warnings: said when the session was opened then, so
 * a face replaying the log skips it (the opening that replays it records its own, once).
 */
export function isProjectWarning(event: SessionEvent): boolean {
  return (
    event.type === "session.warning" &&
    (event.data.warningType === PROJECT_NOT_TRUSTED ||
      event.data.warningType === PROJECT_FILE_NOT_READ)
  );
}
