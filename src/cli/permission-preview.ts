import { argumentText, terminalText } from "../events/errors.js";
import { type PermissionRequest, shownConfinement } from "../permissions/permission-decision.js";
import { unclearParts } from "../permissions/permission-rules.js";
import { fileLines } from "../tools/file-lines.js";
import {
  type DiffCut,
  diffRows,
  fileDiff,
  lineDiff,
  numberedDiffRows,
  withGutters,
} from "../tools/line-diff.js";
import { middleCut } from "./permission-answers.js";

/** Lines of a new file, or of a call's arguments, shown before asking; the rest are counted. */
const PREVIEW_LINES = 12;
/**
 * How much of a change is shown before asking: its removed and its added lines, up to 6 of each,
 * the rest counted by the diff itself (`[… 2727 more lines removed]`), so what the file becomes
 * shows however much it loses (trial 39 F5: a diff cut twice showed 12 removed lines of 2,733 and
 * `… 10 more lines`, never the one line that replaced them).
 */
const PREVIEW_DIFF_CUT: DiffCut = { linesPerSide: 6 };
/**
 * Characters of a command shown before asking, its first two thirds and last third; a longer one
 * loses its middle, counted. About 6 rows at 80 columns: the question and its choices stay on
 * the screen (trial 47 F5).
 */
const PREVIEW_COMMAND_LENGTH = 480;
/** Characters of a command's question's first line (its rows show the command, cut as well). */
const HEADLINE_LENGTH = 150;
/** Characters of one preview line (minified code). */
const PREVIEW_LINE_LENGTH = 160;

/**
 * The question's first line, the same on the interactive screen and in `-p`: `turnloop wants to`
 * and the call's title (`run git log --oneline`), with its command or paths when the title does
 * not show them (`overwrite` for a `create` that replaces a file); an MCP call names its server and tool (`run github's create_issue`) and the
 * tool's own title when it has one. Its control characters drawn as code points: the model, a
 * server or a file name wrote most of it, and what is named must be what runs (events/errors.ts
 * argumentText).
 */
export function permissionHeadline(request: PermissionRequest): string {
  if (request.mcp !== undefined) {
    const { serverName, toolName } = request.mcp;
    const title = request.title.replace(new RegExp(`^${escapeRegExp(serverName)}: `), "");
    const named =
      title === "" || title === toolName || title === request.toolName ? "" : ` (${title})`;
    return headline(`turnloop wants to run ${serverName}'s ${toolName}${named}`);
  }
  const detail = request.command ?? request.paths.join(", ");
  const action = overwrites(request)
    ? request.title.replace(/^Create\b/, "overwrite")
    : request.title.charAt(0).toLowerCase() + request.title.slice(1);
  const shown = detail === "" || request.title.includes(detail) ? "" : ` (${detail})`;
  const line = `turnloop wants to ${action}${shown}`;
  // A command's rows follow, cut as long ones are: its headline need not hold it whole.
  return request.command === undefined ? argumentText(line) : headline(line);
}

/** The question's first line, its middle cut past {@link HEADLINE_LENGTH} characters. */
function headline(text: string): string {
  return middleCut(text, (HEADLINE_LENGTH * 2) / 3, HEADLINE_LENGTH / 3, argumentText);
}

/** Whether the call is a `create` that replaces a file its check found (`Tool.check`). */
function overwrites(request: PermissionRequest): boolean {
  return request.toolName === "create" && typeof request.change?.oldText === "string";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * What a call will do, shown under the permission question: the whole command for `bash` and
 * where it runs when a sandbox policy is in force (`[sandbox: workspace-write, no network]`, or
 * `[outside the sandbox: <reason>]` when asking to run a stopped command outside it), and for one
 * the rules cannot fully read, `cannot be fully read: <reasons>` (the shell parser's), the
 * change for `edit` as a minimal line diff, which the finished call shows too: unchanged lines at
 * either end are context, never removed and re-added; removed lines red, added green; in its
 * file, each row numbered, when the check read it (tools/line-diff.ts `fileDiff`), else within
 * the call's text (`lineDiff`), the start of the file for
 * `create`, or for one that overwrites a file the change its check found (`Tool.check`), the arguments (as JSON) of an MCP call, the paths for anything else that touches
 * files. A change is headed by the sizes of both sides (`2,733 lines become 1`) and shows at
 * most {@link PREVIEW_DIFF_CUT} lines per side, the diff's own note counting the rest; a new file
 * or arguments at most {@link PREVIEW_LINES}. Indented; the command and paths with their control
 * characters drawn as code points (events/errors.ts argumentText), a change's text without terminal
 * control sequences (terminalText).
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
  const paths = request.paths.map(argumentText);
  const path = paths[0];
  if (request.toolName === "edit" && text("old_str") !== undefined) {
    const oldText = text("old_str") ?? "";
    const newText = text("new_str") ?? "";
    const { change } = request;
    return [
      `    ${path ?? text("path") ?? ""} (${replacedCounts(snippetLines(oldText), snippetLines(newText))})`,
      // Where it lands, numbered, among its file's lines when the check read the file (within
      // tools/file-change.ts's cap); else the change within the call's own text.
      ...(change === undefined
        ? diffPreview(lineDiff(oldText, newText, PREVIEW_DIFF_CUT), paint)
        : diffPreview(
            fileDiff(change.oldText ?? "", change.newText, PREVIEW_DIFF_CUT),
            paint,
            true,
          )),
    ];
  }
  const replaced = request.change?.oldText;
  if (
    request.toolName === "create" &&
    request.change !== undefined &&
    typeof replaced === "string"
  ) {
    // An overwrite, as the tool's check found the file (Tool.check): the change, not new content.
    const { newText } = request.change;
    return [
      `    ${path ?? text("path") ?? ""} (overwritten: ${replacedCounts(fileLines(replaced).length, fileLines(newText).length)})`,
      ...diffPreview(fileDiff(replaced, newText, PREVIEW_DIFF_CUT), paint, true),
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
  const unread = `    cannot be fully read: ${middleCut(unclear.join("; "), 160, 80, argumentText)}`;
  return [
    ...commandRows(command),
    ...shown,
    ...(unclear.length === 0 ? [] : [paint("33", unread)]),
  ];
}

/**
 * A command's rows, `$` then `>`, its control characters drawn as code points: past twice {@link
 * PREVIEW_LINES} lines its first {@link PREVIEW_LINES} and last half as many, the lines between
 * counted; a part past {@link PREVIEW_COMMAND_LENGTH} characters (two thirds of it for the first
 * lines, a third for the last) loses its middle, counted too.
 */
function commandRows(command: string): string[] {
  const lines = command.split("\n");
  if (lines.length <= PREVIEW_LINES * 2) {
    return dollarRows(cutCommand(command, PREVIEW_COMMAND_LENGTH), "$");
  }
  const third = PREVIEW_COMMAND_LENGTH / 3;
  const head = cutCommand(lines.slice(0, PREVIEW_LINES).join("\n"), third * 2);
  const tail = cutCommand(lines.slice(-PREVIEW_LINES / 2).join("\n"), third);
  const cut = lines.length - PREVIEW_LINES - PREVIEW_LINES / 2;
  return [
    ...dollarRows(head, "$"),
    `    … ${cut.toLocaleString("en-US")} lines cut …`,
    ...dollarRows(tail, ">"),
  ];
}

/** `text` drawn as an argument, its middle cut past `length` characters (two thirds, a third kept). */
function cutCommand(text: string, length: number): string {
  return middleCut(text, Math.round((length * 2) / 3), Math.round(length / 3), argumentText);
}

/** A command's lines as rows: `first` (`$` or `>`) before the first, `>` before the others. */
function dollarRows(text: string, first: string): string[] {
  return text.split("\n").map((line, index) => `    ${index === 0 ? first : ">"} ${line}`);
}

/**
 * A diff's rows after its `@@` header: context indented, removed lines red, added green, the
 * diff's notes (`[… 2727 more lines removed]`, `\ No newline at end of file`) indented under them.
 * A file's hunk (`numbered`) has each line's number in the file before it (tools/line-diff.ts
 * `numberedDiffRows`): where the change is, not only what it is (trial 40 F13).
 */
function diffPreview(hunk: string, paint: Paint, numbered = false): string[] {
  const color = { "-": "31", "+": "32" } as const;
  const rows = withGutters(
    numbered ? numberedDiffRows(hunk) : diffRows(hunk).map((row) => ({ ...row, line: undefined })),
  );
  return rows.map(({ marker, text, gutter }) => {
    const shown = shortened(terminalText(text));
    if (marker === undefined || marker === " ") {
      return `    ${gutter}  ${shown}`;
    }
    return paint(color[marker], `    ${gutter}${marker} ${shown}`);
  });
}

/** `2,733 lines become 1`: the sizes of both sides of a change. */
function replacedCounts(before: number, after: number): string {
  const lines = before === 1 ? "line becomes" : "lines become";
  return `${before.toLocaleString("en-US")} ${lines} ${after.toLocaleString("en-US")}`;
}

/** Lines of an edit's `old_str` or `new_str`, as line-diff.ts `lineDiff` counts them. */
function snippetLines(text: string): number {
  return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function shortened(line: string): string {
  return line.length > PREVIEW_LINE_LENGTH ? `${line.slice(0, PREVIEW_LINE_LENGTH - 1)}…` : line;
}

function lines(text: string): string[] {
  const split = text.split("\n");
  return text.endsWith("\n") ? split.slice(0, -1) : split;
}

function capped(all: string[], render: (line: string) => string): string[] {
  const shown = all.slice(0, PREVIEW_LINES).map((line) => render(shortened(line)));
  const more = all.length - shown.length;
  return more > 0 ? [...shown, `      … ${more} more line${more === 1 ? "" : "s"}`] : shown;
}
