import { type Component, Input, truncateToWidth } from "@mariozechner/pi-tui";
import type { PermissionReply, PermissionRequest } from "../../agent/permission-gate.js";
import type { Theme } from "./theme.js";

/** Lines of a command or of each side of an edit shown in the question; the rest are counted. */
const PREVIEW_LINES = 12;

/**
 * A permission question inline in the conversation: what the call will do (the command, the
 * edit's lines, a new file's start) and four answers: `y` yes, `a` yes and always for this rule in
 * this session, `n` no, `t` no and a reason typed for the model. While it is open it takes every
 * key, so nothing else can be typed.
 */
export class PermissionQuestion implements Component {
  /** Set once the user chose `t`: the reason being typed. */
  private reason: Input | undefined;
  private answered = false;

  constructor(
    private readonly theme: Theme,
    private readonly request: PermissionRequest,
    private readonly answer: (reply: PermissionReply) => void,
  ) {}

  invalidate(): void {}

  handleInput(data: string): void {
    if (this.answered) {
      return;
    }
    if (this.reason !== undefined) {
      this.reason.handleInput(data);
      return;
    }
    switch (data.toLowerCase()) {
      case "y":
        this.finish({ decision: "allow", scope: "once" });
        return;
      case "a":
        this.finish({ decision: "allow", scope: "session" });
        return;
      case "n":
        this.finish({ decision: "deny", scope: "once", reason: "the user said no" });
        return;
      case "t": {
        const input = new Input();
        input.focused = true;
        input.onSubmit = (value) => {
          const said = value.trim();
          this.finish({
            decision: "deny",
            scope: "once",
            reason: said === "" ? "the user said no" : `the user said no: ${said}`,
          });
        };
        this.reason = input;
        return;
      }
    }
  }

  render(width: number): string[] {
    const { theme, request } = this;
    const action = request.title.charAt(0).toLowerCase() + request.title.slice(1);
    const lines = [
      theme.warning(`turnloop wants to ${action}`),
      ...permissionPreview(request, theme),
      "",
    ];
    if (this.reason === undefined) {
      lines.push(
        `${theme.bold("[y]")} yes   ${theme.bold("[n]")} no   ${theme.bold("[t]")} no, and tell the model why`,
        `${theme.bold("[a]")} yes, and always for ${request.alwaysRule} in this session`,
      );
    } else {
      lines.push(theme.dim("what should the model know? (Enter sends)"));
      lines.push(...this.reason.render(Math.max(1, width)));
    }
    return lines.map((line) => truncateToWidth(line, width));
  }

  private finish(reply: PermissionReply): void {
    this.answered = true;
    this.answer(reply);
  }
}

/**
 * What a call will do: the whole command, an edit's old and new lines, a new file's first lines,
 * else the paths it touches. (The `cli` lane's `-p` preview says the same for text mode; one
 * should serve both once both are on main.)
 */
export function permissionPreview(request: PermissionRequest, theme: Theme): string[] {
  const input = request.rawInput;
  const text = (key: string) =>
    typeof input[key] === "string" ? (input[key] as string) : undefined;
  if (request.command !== undefined) {
    return capped(request.command.split("\n"), (line, index) =>
      theme.bold(`  ${index === 0 ? "$" : ">"} ${line}`),
    );
  }
  const path = request.paths[0] ?? text("path") ?? "";
  if (request.toolName === "edit" && text("old_str") !== undefined) {
    return [
      `  ${path}`,
      ...capped(lines(text("old_str") ?? ""), (line) => theme.removed(`  - ${line}`)),
      ...capped(lines(text("new_str") ?? ""), (line) => theme.added(`  + ${line}`)),
    ];
  }
  if (request.toolName === "create" && text("file_text") !== undefined) {
    return [
      `  ${path} (new file)`,
      ...capped(lines(text("file_text") ?? ""), (line) => theme.added(`  + ${line}`)),
    ];
  }
  return request.paths.map((item) => `  ${item}`);
}

function lines(text: string): string[] {
  const split = text.split("\n");
  return text.endsWith("\n") ? split.slice(0, -1) : split;
}

function capped(all: string[], render: (line: string, index: number) => string): string[] {
  const shown = all.slice(0, PREVIEW_LINES).map(render);
  const more = all.length - shown.length;
  return more > 0 ? [...shown, `    … ${more} more line${more === 1 ? "" : "s"}`] : shown;
}
