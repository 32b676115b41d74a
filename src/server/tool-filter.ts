/**
 * The Copilot SDK's tool filters (`availableTools`, `excludedTools`, `defaultAgent.excludedTools`):
 * a bare name matches a tool of that name from any source; `builtin:<name>`, `custom:<name>` and
 * `mcp:<name>` match only tools of that source, and `<source>:*` every tool of it (the SDK's
 * `ToolSet` builds these; see `SessionConfigBase.availableTools` in the SDK's `types.d.ts`).
 * Sources: `builtin` = turnloop's own tools, `custom` = the app's `tools`, `mcp` = MCP servers'
 * tools (named `<server>-<tool>` on this face as by Copilot; turnloop's `<server>__<tool>` matches
 * too).
 */

import { builtinTools } from "../tools/index.js";

/**
 * turnloop's built-in tool names (`task_complete` is offered in autopilot, `ask_user` to apps
 * with a user-input handler).
 */
export const BUILT_IN_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...builtinTools().map((tool) => tool.name),
  "task_complete",
  "ask_user",
]);

/** Where an offered tool comes from, as the filters name it. */
export type ToolSource = "builtin" | "custom" | "mcp";

const SOURCES: ReadonlySet<string> = new Set<ToolSource>(["builtin", "custom", "mcp"]);

/** One tool as a filter sees it. */
export interface FilteredTool {
  name: string;
  source: ToolSource;
}

/** Whether `pattern` (bare or source-qualified, see above) matches `tool`. */
export function matchesToolFilter(pattern: string, tool: FilteredTool): boolean {
  const colon = pattern.indexOf(":");
  const source = colon < 0 ? undefined : pattern.slice(0, colon);
  if (source === undefined || !SOURCES.has(source)) {
    return pattern === tool.name;
  }
  if (source !== tool.source) {
    return false;
  }
  const name = pattern.slice(colon + 1);
  return (
    name === "*" ||
    name === tool.name ||
    (source === "mcp" && copilotMcpName(name) === copilotMcpName(tool.name))
  );
}

/**
 * Whether `tool` is offered: it matches `available` (or `available` is absent) and matches none
 * of `excluded` (excluded wins, as with Copilot).
 */
export function passesToolFilters(
  tool: FilteredTool,
  available: readonly string[] | undefined,
  excluded: readonly string[],
): boolean {
  const matches = (pattern: string) => matchesToolFilter(pattern, tool);
  return (available === undefined || available.some(matches)) && !excluded.some(matches);
}

/** Copilot's name of an MCP tool, `<server>-<tool>`, from turnloop's `<server>__<tool>`. */
function copilotMcpName(name: string): string {
  return name.replace("__", "-");
}
