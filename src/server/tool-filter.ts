/**
 * The Copilot SDK's tool filters (`availableTools`, `excludedTools`, `defaultAgent.excludedTools`):
 * a bare name matches a tool of that name from any source; `builtin:<name>`, `custom:<name>` and
 * `mcp:<name>` match only tools of that source, and `<source>:*` every tool of it (the SDK's
 * `ToolSet` builds these; see `SessionConfigBase.availableTools` in the SDK's `types.d.ts`).
 * Sources: `builtin` = turnloop's own tools, `custom` = the app's `tools`, `mcp` = MCP servers'
 * tools (named `<server>-<tool>` on this face as by Copilot; turnloop's `<server>__<tool>` matches
 * too).
 */

import type { ToolDeclarationParams } from "../protocol/session-settings.js";
import { builtinTools } from "../tools/index.js";
import { invalidParams } from "./params.js";

/**
 * turnloop's built-in tool names (`task_complete` is offered in autopilot, `ask_user` to apps
 * with a user-input handler).
 */
export const BUILT_IN_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...builtinTools().map((tool) => tool.name),
  "task_complete",
  "ask_user",
]);

/**
 * The app's declared tools (`session.create` / `session.resume` `tools`): names must be unique,
 * and a built-in name needs `overridesBuiltInTool`.
 * @throws `-32602` naming the tool, after `method` as the server's other refusals of its params
 * (`session.create: tools[1] "dup" is declared twice`).
 */
export function checkDeclaredTools(
  method: "session.create" | "session.resume",
  tools: readonly ToolDeclarationParams[] | undefined,
): void {
  const seen = new Set<string>();
  for (const [index, tool] of (tools ?? []).entries()) {
    const named = `${method}: tools[${index}] ${JSON.stringify(tool.name)}`;
    if (seen.has(tool.name)) {
      throw invalidParams(`${named} is declared twice`);
    }
    seen.add(tool.name);
    if (BUILT_IN_TOOL_NAMES.has(tool.name) && tool.overridesBuiltInTool !== true) {
      throw invalidParams(
        `${named} clashes with a built-in tool: rename it or set overridesBuiltInTool`,
      );
    }
  }
}

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
