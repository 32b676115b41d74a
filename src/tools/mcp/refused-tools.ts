/**
 * A provider's refusal of a request for an MCP tool's schema, said with the tool's server
 * (agent/loop.ts loads this module only when a request that offered MCP tools failed).
 */

import type { ProviderFailure } from "../../llm/provider.js";
import type { AnyTool } from "../define-tool.js";

/**
 * `failure` with the MCP server of each offered MCP tool its message names, when the provider
 * refused the request (HTTP 400, e.g. OpenAI's `invalid_function_parameters` for a schema it does
 * not take): `… (raw__wide is tool "wide" of MCP server raw)`, since the schema is the server's;
 * `failure` itself otherwise. A name counts only whole (not inside a longer name).
 */
export function namingToolServers(
  failure: ProviderFailure,
  tools: readonly AnyTool[],
): ProviderFailure {
  if (failure.statusCode !== 400) {
    return failure;
  }
  const origins = tools.flatMap((tool) => {
    if (tool.mcp === undefined) {
      return [];
    }
    // An MCP tool's name holds only `[A-Za-z0-9_-]` (tools/mcp/tools.ts `qualifiedToolName`).
    const whole = new RegExp(`(?<![A-Za-z0-9_-])${tool.name}(?![A-Za-z0-9_-])`);
    return whole.test(failure.message)
      ? [`${tool.name} is tool "${tool.mcp.toolName}" of MCP server ${tool.mcp.serverName}`]
      : [];
  });
  return origins.length === 0
    ? failure
    : { ...failure, message: `${failure.message} (${origins.join("; ")})` };
}
