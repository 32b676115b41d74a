import type { PermissionRequest } from "../permissions/permission-decision.js";

/** Lines of a diff or a new file shown before asking; the rest are counted. */
const PREVIEW_LINES = 12;
/** Characters of one preview line (minified code). */
const PREVIEW_LINE_LENGTH = 160;

/**
 * What a call will do, shown under the permission question: the whole command for `bash`, the
 * change for `edit` (removed lines red, added green), the start of the file for `create`, the
 * server, tool and arguments (as JSON) of an MCP call, the paths for anything else that touches
 * files. Indented, at most {@link PREVIEW_LINES} per side.
 */
export function permissionPreview(request: PermissionRequest, color: boolean): string[] {
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const input = request.rawInput;
  const text = (key: string) =>
    typeof input[key] === "string" ? (input[key] as string) : undefined;
  if (request.command !== undefined) {
    return request.command
      .split("\n")
      .map((line, index) => `    ${index === 0 ? "$" : ">"} ${line}`);
  }
  if (request.mcp !== undefined) {
    const json = JSON.stringify(input, null, 2);
    return [
      `    MCP server ${request.mcp.serverName}, tool ${request.mcp.toolName}`,
      ...(json === "{}" ? [] : capped(lines(json), (line) => `    ${line}`)),
    ];
  }
  const path = request.paths[0];
  if (request.toolName === "edit" && text("old_str") !== undefined) {
    return [
      `    ${path ?? text("path") ?? ""}`,
      ...capped(lines(text("old_str") ?? ""), (line) => paint("31", `    - ${line}`)),
      ...capped(lines(text("new_str") ?? ""), (line) => paint("32", `    + ${line}`)),
    ];
  }
  if (request.toolName === "create" && text("file_text") !== undefined) {
    return [
      `    ${path ?? text("path") ?? ""} (new content)`,
      ...capped(lines(text("file_text") ?? ""), (line) => paint("32", `    + ${line}`)),
    ];
  }
  return request.paths.map((item) => `    ${item}`);
}

function lines(text: string): string[] {
  const split = text.split("\n");
  return text.endsWith("\n") ? split.slice(0, -1) : split;
}

function capped(all: string[], render: (line: string) => string): string[] {
  const shown = all
    .slice(0, PREVIEW_LINES)
    .map((line) =>
      render(
        line.length > PREVIEW_LINE_LENGTH ? `${line.slice(0, PREVIEW_LINE_LENGTH - 1)}…` : line,
      ),
    );
  const more = all.length - shown.length;
  return more > 0 ? [...shown, `      … ${more} more line${more === 1 ? "" : "s"}`] : shown;
}
