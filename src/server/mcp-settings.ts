/**
 * An app's `mcpServers` (the Copilot SDK's session config, in `session.create` and
 * `session.resume`), read entry by entry: the entries turnloop can start run with the session;
 * each one it cannot (no `command` or `url`, a `url` that is no http:// or https:// URL) is left
 * out, said on the server's stderr and, since an app reads events and not the server's log, as a
 * `session.warning` (`warningType` {@link MCP_SERVER_NOT_STARTED}, the Copilot event's fields) the
 * app receives and the log keeps, as the settings it ignores are (ignored-settings.ts).
 */

import { warningLine, withoutPrefix } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import type { Session } from "../session/session.js";
import { type McpServerConfigs, parseServers } from "../tools/mcp/config.js";
import type { ServerContext } from "./connection.js";

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

/**
 * A client joins a session this server already runs (`session.resume` of an open session) with
 * `mcpServers`: the servers the session lacks start for it, as a resume that opens it starts
 * them (all of them, for a session with none yet); a server it has keeps running as it is, and
 * one given with other settings is said in a problem (to change it, close the session and resume
 * it). Each problem is written to the server's log at once.
 * @returns one problem per entry not started, for {@link warnAppServers}.
 */
export async function joinAppServers(
  server: Pick<ServerContext, "host" | "log">,
  session: Session,
  mcpServers: Record<string, unknown> | undefined,
): Promise<string[]> {
  const log = (line: string) => server.log(withoutPrefix(line));
  const given = appServers(mcpServers, log);
  if (Object.keys(given.servers).length === 0) {
    return given.problems;
  }
  const running = session.mcp;
  if (running === undefined) {
    // The SDK face names MCP tools as the Copilot CLI does, as session-opening.ts starts them.
    await server.host.startMcpServers(session, given.servers, log, undefined, "copilot");
    return given.problems;
  }
  const kept = running.add(given.servers).map((name) => {
    const problem = `MCP server not started: session mcpServers: server "${name}" already runs in this session with other settings, which it keeps (to change them, close the session and resume it)`;
    log(warningLine(problem));
    return problem;
  });
  return [...given.problems, ...kept];
}
