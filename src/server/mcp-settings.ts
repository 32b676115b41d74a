/**
 * An app's `mcpServers` (the Copilot SDK's session config, in `session.create` and
 * `session.resume`), read entry by entry: the entries turnloop can start run with the session;
 * each one it cannot (no `command` or `url`, a `url` that is no http:// or https:// URL) is left
 * out, said on the server's stderr and, since an app reads events and not the server's log, as a
 * `session.warning` (`warningType` {@link MCP_SERVER_NOT_STARTED}, the Copilot event's fields) the
 * app receives and the log keeps, as the settings it ignores are (ignored-settings.ts).
 */

import { warningLine } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import type { Session } from "../session/session.js";
import { type McpServerConfigs, parseServers } from "../tools/mcp/config.js";

/** The `warningType` of the warning about an `mcpServers` entry that was not started. */
export const MCP_SERVER_NOT_STARTED = "mcp_server_not_started";

/** What an app's `mcpServers` give: the servers to start, and one message per entry left out. */
export interface AppServers {
  servers: McpServerConfigs;
  /** `MCP server not started: session mcpServers: server "bad": needs "command" (stdio) or …`. */
  problems: string[];
}

/** Reads `mcpServers` (see the module comment); each problem is written to `log` at once. */
export function appServers(
  mcpServers: Record<string, unknown> | undefined,
  log: (line: string) => void,
): AppServers {
  const given = parseServers(mcpServers, "session mcpServers");
  const problems = given.problems.map((problem) => `MCP server not started: ${problem}`);
  for (const problem of problems) {
    log(warningLine(problem));
  }
  return { servers: given.servers, problems };
}

/**
 * Emits one `session.warning` per problem in `session` (persisted, and sent to the apps attached
 * to it) and adds them to its `openingEvents`, which `session.create` sends before its answer.
 * @returns the events emitted, in order.
 */
export function warnAppServers(session: Session, problems: readonly string[]): SessionEvent[] {
  const events = problems.map((message) =>
    session.emit({
      type: "session.warning",
      data: { warningType: MCP_SERVER_NOT_STARTED, message },
    }),
  );
  session.openingEvents.push(...events);
  return events;
}
