import { type Component, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import type { JsonObject, SessionEventOf } from "../../events/events.js";
import { shortArguments } from "../terminal-renderer.js";
import type { Theme } from "./theme.js";

/** Lines of a command's output, or of each side of an edit, shown under a finished call. */
const PREVIEW_LINES = 4;

type Status =
  | { kind: "announced" }
  | { kind: "asking" }
  | { kind: "running"; since: number }
  | { kind: "done"; event: SessionEventOf<"tool.execution_complete">; durationMs: number };

/**
 * One tool call on screen: a line with its name and arguments as soon as it is known, a live
 * status (asking, running with the elapsed time), then its outcome and a short preview: the
 * change for edits, the last lines of output for commands.
 */
export class ToolCallView implements Component {
  readonly toolCallId: string;
  private toolName: string;
  private arguments: JsonObject;
  private status: Status = { kind: "announced" };

  constructor(
    private readonly theme: Theme,
    call: { toolCallId: string; toolName: string; arguments?: JsonObject },
  ) {
    this.toolCallId = call.toolCallId;
    this.toolName = call.toolName;
    this.arguments = call.arguments ?? {};
  }

  get finished(): boolean {
    return this.status.kind === "done";
  }

  /** The call's arguments are complete (its `tool.execution_start` or `assistant.message`). */
  setArguments(toolName: string, parameters: JsonObject): void {
    this.toolName = toolName;
    this.arguments = parameters;
  }

  asking(): void {
    this.status = { kind: "asking" };
  }

  running(now = Date.now()): void {
    if (this.status.kind !== "running") {
      this.status = { kind: "running", since: now };
    }
  }

  complete(event: SessionEventOf<"tool.execution_complete">, now = Date.now()): void {
    const since = this.status.kind === "running" ? this.status.since : now;
    this.status = { kind: "done", event, durationMs: now - since };
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { theme } = this;
    const [state, ...preview] = this.detail();
    const head = `${this.mark()} ${theme.bold(this.toolName)} ${this.summary()}`;
    const room = width - visibleWidth(state ?? "") - 2;
    const line =
      state === undefined || room < 10
        ? truncateToWidth(head, width)
        : `${truncateToWidth(head, room)}  ${state}`;
    return [
      truncateToWidth(line, width),
      ...preview.map((text) => truncateToWidth(`  ${text}`, width)),
    ];
  }

  private mark(): string {
    const { theme, status } = this;
    if (status.kind !== "done") {
      return theme.accent("●");
    }
    if (status.event.data.success) {
      return theme.success("✓");
    }
    return status.event.data.error?.code === "interrupted" ||
      status.event.data.error?.code === "cancelled"
      ? theme.warning("⊘")
      : theme.failure("✗");
  }

  private summary(): string {
    const parameters = this.arguments;
    const text = (key: string) =>
      typeof parameters[key] === "string" ? (parameters[key] as string) : undefined;
    const first = text("command") ?? text("path") ?? text("pattern");
    return first === undefined ? shortArguments(parameters) : first.replace(/\s+/g, " ");
  }

  /** The state shown after the call's line, then the preview lines under it. */
  private detail(): string[] {
    const { theme, status } = this;
    switch (status.kind) {
      case "announced":
        return [theme.dim("…")];
      case "asking":
        return [theme.warning("waiting for your answer")];
      case "running":
        return [theme.dim(`running ${seconds(Date.now() - status.since)}`)];
      case "done":
        return this.outcome(status.event, status.durationMs);
    }
  }

  private outcome(event: SessionEventOf<"tool.execution_complete">, durationMs: number): string[] {
    const { theme } = this;
    const { success, error, result } = event.data;
    if (!success) {
      const message = (error?.message ?? result.content).split("\n");
      const tail = message.filter((line) => line.trim() !== "").slice(-PREVIEW_LINES);
      const label =
        error?.code === "interrupted" || error?.code === "cancelled" ? "interrupted" : "failed";
      return [theme.failure(label), ...tail.map((line) => theme.dim(line))];
    }
    const timing = theme.dim(seconds(durationMs));
    if (this.toolName === "edit") {
      return [timing, ...this.diff()];
    }
    if (this.toolName === "create") {
      const lines = lineCount(String(this.arguments.file_text ?? ""));
      return [`${timing} ${theme.added(`+${lines} line${lines === 1 ? "" : "s"}`)}`];
    }
    const output = result.content.split("\n").filter((line) => line.trim() !== "");
    if (this.toolName === "bash") {
      return [timing, ...output.slice(-PREVIEW_LINES).map((line) => theme.dim(line))];
    }
    return [`${timing} ${theme.dim(`· ${output.length} line${output.length === 1 ? "" : "s"}`)}`];
  }

  private diff(): string[] {
    const { theme } = this;
    const side = (key: string, sign: string, paint: (text: string) => string) => {
      const lines = String(this.arguments[key] ?? "").split("\n");
      const shown = lines.slice(0, PREVIEW_LINES).map((line) => paint(`${sign} ${line}`));
      const more = lines.length - shown.length;
      return more > 0 ? [...shown, theme.dim(`  … ${more} more`)] : shown;
    };
    return [...side("old_str", "-", theme.removed), ...side("new_str", "+", theme.added)];
  }
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

function lineCount(text: string): number {
  if (text === "") {
    return 0;
  }
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
