import type { McpServerState } from "./connection.js";

/**
 * The one line every face shows for a server's status change (`session.mcp_server_status_changed`)
 * that needs saying, in the same words on each (README "MCP servers"): a server that failed,
 * `MCP server fs failed: the server exited with exit code 3; its tools are not available`, or one
 * still starting when a prompt's start-up wait is over, `MCP server fs is still starting:
 * initialize got no answer within 5 s; …`. Undefined for any other change. Faces add their own
 * marks: `turnloop: ` on stderr, `⚠ ` in an editor's agent message.
 */
export function mcpStatusNotice(change: {
  serverName: string;
  status: McpServerState;
  error?: string;
}): string | undefined {
  const { serverName, status, error } = change;
  if (status === "failed") {
    return `MCP server ${serverName} failed: ${error ?? "unknown error"}; its tools are not available`;
  }
  return status === "pending" && error !== undefined
    ? `MCP server ${serverName} is still starting: ${error}`
    : undefined;
}
