/**
 * What a session is told of its MCP servers (tools/mcp/servers.ts `McpServersOptions`'s
 * `onRenamedTools` and `onStatus`): each renamed tool a `session.warning`, each status change a
 * `session.mcp_server_status_changed` event, and a failure also said through `log` (stderr, with
 * `about` `status`: mcp-servers.ts `McpStartOptions.log`). A session already closing is told
 * nothing.
 */

import type { McpServersOptions } from "../tools/mcp/servers.js";
import { mcpStatusNotice } from "../tools/mcp/status-notice.js";
import type { Session } from "./session.js";

/** The two handlers, for `session`; `log` as mcp-servers.ts `McpStartOptions.log`. */
export function statusEvents(
  session: Session,
  log: ((line: string, about?: "status") => void) | undefined,
): Pick<McpServersOptions, "onRenamedTools" | "onStatus"> {
  return {
    onRenamedTools: (serverName, sentences) => {
      // A session.warning: every face shows those, the app's included.
      for (const sentence of sentences) {
        try {
          session.emit({
            type: "session.warning",
            data: {
              warningType: "mcp_tool_name",
              message: `MCP server ${serverName}: ${sentence}`,
            },
          });
        } catch {
          // The session is closing; nobody is left to tell.
        }
      }
    },
    onStatus: (summary) => {
      const notice = mcpStatusNotice({
        serverName: summary.name,
        ...summary,
        status: summary.state,
      });
      if (notice !== undefined) {
        log?.(`turnloop: ${notice}`, "status");
      }
      try {
        session.emit({
          type: "session.mcp_server_status_changed",
          data: {
            serverName: summary.name,
            status: summary.state,
            ...(summary.error === undefined ? {} : { error: summary.error }),
          },
        });
      } catch {
        // The session is closing; nobody is left to tell.
      }
    },
  };
}
