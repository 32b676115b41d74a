import { terminalText } from "../events/errors.js";
import { type PermissionRequest, shownConfinement } from "../permissions/permission-decision.js";
import { unclearParts } from "../permissions/permission-rules.js";
import { editDiffRows, fileDiff } from "../tools/line-diff.js";

/** Lines of a diff or a new file shown before asking; the rest are counted. */
const PREVIEW_LINES = 12;
/** Characters of one preview line (minified code). */
const PREVIEW_LINE_LENGTH = 160;

/**
 * The question's first line, the same on the interactive screen and in `-p`: `turnloop wants to`
 * and the call's title (`run git log --oneline`), with its command or paths when the title does
 * not show them; an MCP call names its server and tool (`run github's create_issue`) and the
 * tool's own title when it has one. Without terminal control sequences: the model, a server or a
 * file name wrote most of it (events/errors.ts terminalText).
 */
export function permissionHeadline(request: PermissionRequest): string {
  if (request.mcp !== undefined) {
    const { serverName, toolName } = request.mcp;
    const title = request.title.replace(new RegExp(`^${escapeRegExp(serverName)}: `), "");
    const named =
      title === "" || title === toolName || title === request.toolName ? "" : ` (${title})`;
    return terminalText(`turnloop wants to run ${serverName}'s ${toolName}${named}`);
  }
  const detail = request.command ?? request.paths.join(", ");
  const action = request.title.charAt(0).toLowerCase() + request.title.slice(1);
  const shown = detail === "" || request.title.includes(detail) ? "" : ` (${detail})`;
  return terminalText(`turnloop wants to ${action}${shown}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * What a call will do, shown under the permission question: the whole command for `bash` and
 * where it runs when a sandbox policy is in force (`[sandbox: workspace-write, no network]`, or
 * `[outside the sandbox: <reason>]` when asking to run a stopped command outside it), and for one
 * the rules cannot fully read, `cannot be fully read: <reasons>` (the shell parser's), the
 * change for `edit` as a minimal line diff (tools/line-diff.ts `editDiffRows`, which the finished call
 * shows too: unchanged lines at either end are context, never removed and re-added; removed lines
 * red, added green), the start of the file for
 * `create`, or for one that overwrites a file the change its check found (`Tool.check`), the arguments (as JSON) of an MCP call, the paths for anything else that touches
 * files. Indented, at most {@link PREVIEW_LINES} per side; the call's text without terminal control
 * sequences (events/errors.ts terminalText).
 */
export function permissionPreview(request: PermissionRequest, color: boolean): string[] {
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const input = request.rawInput;
  const text = (key: string) =>
    typeof input[key] === "string" ? terminalText(input[key] as string) : undefined;
  if (request.command !== undefined) {
    return commandPreview(request.command, request.sandbox, paint);
  }
  if (request.mcp !== undefined) {
    const json = JSON.stringify(input, null, 2);
    return json === "{}" ? [] : capped(lines(json), (line) => `    ${line}`);
  }
  const paths = request.paths.map(terminalText);
  const path = paths[0];
  if (request.toolName === "edit" && text("old_str") !== undefined) {
    const rows = editDiffRows(text("old_str") ?? "", text("new_str") ?? "");
    const color = { "-": "31", "+": "32" } as const;
    return [
      `    ${path ?? text("path") ?? ""}`,
      ...capped(
        rows.map(({ marker, text }) => (marker === undefined ? text : `${marker} ${text}`)),
        (line, index) => {
          const marker = rows[index]?.marker;
          if (marker === undefined) {
            return `      ${line}`;
          }
          return marker === " " ? `    ${line}` : paint(color[marker], `    ${line}`);
        },
      ),
    ];
  }
  const replaced = request.change?.oldText;
  if (
    request.toolName === "create" &&
    request.change !== undefined &&
    typeof replaced === "string"
  ) {
    // An overwrite, as the tool's check found the file (Tool.check): the change, not new content.
    return [
      `    ${path ?? text("path") ?? ""} (replaced)`,
      ...replacedLines(replaced, request.change.newText, paint),
    ];
  }
  if (request.toolName === "create" && text("file_text") !== undefined) {
    return [
      `    ${path ?? text("path") ?? ""} (new content)`,
      ...capped(lines(text("file_text") ?? ""), (line) => paint("32", `    + ${line}`)),
    ];
  }
  return paths.map((item) => `    ${item}`);
}

type Paint = (code: string, text: string) => string;

/** A shell command's lines (`$` then `>`), its confinement, and what the rules cannot read of it. */
function commandPreview(
  command: string,
  sandbox: PermissionRequest["sandbox"],
  paint: Paint,
): string[] {
  const confinement = shownConfinement(sandbox);
  const shown = confinement === undefined ? [] : [`    [${confinement}]`];
  // What the rules could not read of it (a computed command name, `eval` …): an "always" then
  // records only this exact command, never its prefix (permissions/command-prefix.ts).
  const unclear = unclearParts(command);
  return [
    ...terminalText(command)
      .split("\n")
      .map((line, index) => `    ${index === 0 ? "$" : ">"} ${line}`),
    ...shown,
    ...(unclear.length === 0
      ? []
      : [paint("33", `    cannot be fully read: ${terminalText(unclear.join("; "))}`)]),
  ];
}

/** The hunk lines of a file's text replaced by another, removed red and added green. */
function replacedLines(oldText: string, newText: string, paint: Paint): string[] {
  const hunk = fileDiff(oldText, newText).split("\n").slice(1);
  return capped(hunk.map(terminalText), (line) => {
    const marker = line.charAt(0);
    const shown = `    ${marker === "\\" ? "  " : `${marker} `}${line.slice(1)}`;
    return marker === "-" ? paint("31", shown) : marker === "+" ? paint("32", shown) : shown;
  });
}

function lines(text: string): string[] {
  const split = text.split("\n");
  return text.endsWith("\n") ? split.slice(0, -1) : split;
}

function capped(all: string[], render: (line: string, index: number) => string): string[] {
  const shown = all
    .slice(0, PREVIEW_LINES)
    .map((line, index) =>
      render(
        line.length > PREVIEW_LINE_LENGTH ? `${line.slice(0, PREVIEW_LINE_LENGTH - 1)}…` : line,
        index,
      ),
    );
  const more = all.length - shown.length;
  return more > 0 ? [...shown, `      … ${more} more line${more === 1 ? "" : "s"}`] : shown;
}
