/**
 * The Copilot SDK's `session.mcp.list`, `enable`, `disable` and `restartServer` (names, params and
 * results of the SDK's generated `rpc.d.ts`: `McpServerList`, `McpEnableRequest` …) over the
 * session's MCP servers (src/tools/mcp/servers.ts). Each state change reaches the app as
 * `session.mcp_server_status_changed`.
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import type { McpServers } from "../tools/mcp/servers.js";
import type { ClientConnection } from "./connection.js";
import { invalidParams, parseParams, sessionIdSchema, sessionOnlyParams } from "./params.js";
import { openSession } from "./session-methods.js";

const serverParams = z.looseObject({ sessionId: sessionIdSchema, serverName: z.string().min(1) });

/**
 * `session.mcp.list` → `{servers: [{name, status, error?}]}`: Copilot's statuses (`connected`,
 * `pending`, `failed`, `stopped`, `disabled` for a server turned off by `disable`).
 */
export function mcpListMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.mcp.list", sessionOnlyParams, raw);
  const servers = openSession(connection.server, sessionId).session.mcp?.list() ?? [];
  return {
    servers: servers.map((server) => ({
      name: server.name,
      status: server.disabled === true ? "disabled" : server.state,
      ...(server.error === undefined ? {} : { error: server.error }),
    })),
  };
}

/** Runs `change` on the session's servers; a name it has not is invalid params. */
async function changeServer(
  connection: ClientConnection,
  method: string,
  raw: unknown,
  change: (servers: McpServers, name: string) => Promise<void>,
): Promise<null> {
  const { sessionId, serverName } = parseParams(method, serverParams, raw);
  const servers = openSession(connection.server, sessionId).session.mcp;
  if (servers === undefined) {
    throw invalidParams(`${method}: session ${sessionId} has no MCP servers`);
  }
  try {
    await change(servers, serverName);
  } catch (error) {
    throw invalidParams(`${method}: ${errorMessage(error)}`);
  }
  return null;
}

/** `session.mcp.disable {serverName}`: stops the server; its tools leave the next request. */
export function mcpDisableMethod(connection: ClientConnection, raw: unknown) {
  return changeServer(connection, "session.mcp.disable", raw, (servers, name) =>
    servers.disable(name),
  );
}

/** `session.mcp.enable {serverName}`: starts a disabled server again; answers once it settled. */
export function mcpEnableMethod(connection: ClientConnection, raw: unknown) {
  return changeServer(connection, "session.mcp.enable", raw, (servers, name) =>
    servers.enable(name),
  );
}

/**
 * `session.mcp.restartServer {serverName}`: reconnects (a new process or connection, its tools
 * read again); answers once it connected or failed. A `config` in the params is not applied.
 */
export function mcpRestartMethod(connection: ClientConnection, raw: unknown) {
  return changeServer(connection, "session.mcp.restartServer", raw, (servers, name) =>
    servers.restart(name),
  );
}
