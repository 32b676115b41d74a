import type { JsonObject, SessionEvent } from "../events/events.js";
import { SessionFold, type ToolCall } from "../session/session-model/session-model.js";
import type { MarkdownRenderer } from "./markdown.js";
import type { Spinner, TextSink } from "./spinner.js";

/** Totals for the closing summary line. */
interface Totals {
  turns: number;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /** USD; undefined until a turn with a known price. */
  cost: number | undefined;
}

const SHORT_ARGUMENTS_LENGTH = 60;

/**
 * Renders a session's events for `turnloop -p` in text mode: the answer streams to stdout; each
 * tool call is one dim line on stderr (name, short arguments or path, ✓/✗ with the outcome — a
 * command's exit code, an edit's `+N −M` — and its duration without the time spent on a
 * permission question), a failed command's last output lines under it; retries and errors go to
 * stderr. A call's outcome, exit code and duration are the session model's
 * (src/session/session-model/). Exhaustive over event types, so a new event type must be placed
 * here.
 */
export class TerminalRenderer {
  /** The session model the tool lines are read from. */
  private readonly fold = new SessionFold();
  private atLineStart = true;
  private toolsSinceText = false;
  private wroteText = false;
  readonly totals: Totals = {
    turns: 0,
    inputTokens: undefined,
    outputTokens: undefined,
    cost: undefined,
  };

  constructor(
    private readonly stdout: TextSink,
    private readonly stderr: TextSink,
    private readonly color: boolean,
    /** Show every line of a failed command's output instead of the last few. */
    private readonly verbose = false,
    /** When stdout is a terminal: each reply rendered as Markdown once complete, a waiting line. */
    private readonly terminal: { markdown?: MarkdownRenderer; spinner?: Spinner } = {},
  ) {}

  /** Reply text waiting to be rendered as Markdown. */
  private pending = "";

  readonly handle = (event: SessionEvent): void => {
    this.fold.apply(event);
    switch (event.type) {
      case "assistant.message_delta":
        if (this.terminal.markdown !== undefined) {
          this.pending += event.data.deltaContent;
          return;
        }
        this.answer(event.data.deltaContent);
        return;
      case "assistant.message":
        this.terminal.spinner?.stop();
        if (this.terminal.markdown !== undefined && this.pending.trim() !== "") {
          this.answer(this.terminal.markdown(this.pending));
        }
        this.pending = "";
        this.endLine();
        return;
      case "assistant.turn_start":
        this.totals.turns++;
        this.terminal.spinner?.start("thinking");
        return;
      case "assistant.usage":
        this.totals.inputTokens = add(this.totals.inputTokens, event.data.inputTokens);
        this.totals.outputTokens = add(this.totals.outputTokens, event.data.outputTokens);
        this.totals.cost = add(this.totals.cost, event.data.cost);
        return;
      case "tool.execution_start":
        this.terminal.spinner?.start(`running ${event.data.toolName}`);
        return;
      case "tool.execution_complete":
        this.toolsSinceText = true;
        this.toolLine(event.data.toolCallId);
        return;
      case "assistant.retry": {
        const seconds = (event.data.delayMs / 1000).toFixed(1);
        this.note(
          `retrying in ${seconds} s (attempt ${event.data.attempt}): ${event.data.errorMessage}`,
        );
        return;
      }
      case "session.error":
        this.endLine();
        this.error(`${this.paint("31", "error")}: ${event.data.message}\n`);
        return;
      case "session.idle":
        this.terminal.spinner?.stop();
        return;
      case "abort":
        this.endLine();
        this.note("cancelled");
        return;
      case "session.task_complete":
        this.note(`task complete: ${event.data.summary}`);
        return;
      case "session.autopilot_stopped":
        this.note(
          `autopilot: the task was not marked complete (stopped after ${event.data.continues} continues)`,
        );
        return;
      case "user.message":
        if (event.data.source === "autopilot") {
          this.note("autopilot: continuing");
        }
        return;
      case "permission.requested":
        // The question is written to stderr next: no waiting line over it.
        this.terminal.spinner?.stop();
        return;
      case "permission.completed":
        if (event.data.decision === "allowed") {
          this.terminal.spinner?.start("running");
        }
        if (event.data.decision === "denied") {
          this.note(`permission denied${event.data.reason ? `: ${event.data.reason}` : ""}`);
        }
        return;
      case "session.start":
      case "session.resume":
      case "assistant.reasoning_delta":
      case "assistant.tool_call_start":
      case "tool.execution_running":
      case "assistant.turn_end":
      case "tool.execution_partial_result":
      case "session.plan_updated":
      case "session.instructions_loaded":
      case "session.compaction_start":
      case "external_tool.requested":
      case "external_tool.completed":
      case "hook.start":
      case "hook.end":
      case "session.model_change":
      case "session.mode_changed":
      case "session.usage_info":
      case "pending_messages.modified":
      case "session.info":
        return;
      case "session.mcp_server_status_changed":
        if (event.data.status === "failed") {
          this.note(
            `MCP server ${event.data.serverName} failed: ${event.data.error ?? "unknown error"}`,
          );
        }
        return;
      case "session.compaction_complete": {
        const { success, preCompactionTokens, postCompactionTokens, trigger, error } = event.data;
        this.note(
          success
            ? `compacted the conversation (${trigger}): ${preCompactionTokens} → ${postCompactionTokens ?? "?"} tokens`
            : `compaction failed (${trigger}): ${error ?? "unknown error"}`,
        );
        return;
      }
      case "session.warning":
        this.endLine();
        this.error(`${this.paint("33", "warning")}: ${event.data.message}\n`);
        return;
      default: {
        // A new event type fails to compile here until the renderer decides how to show it.
        const unhandled: never = event;
        void unhandled;
      }
    }
  };

  /** The closing line on stderr: turns, tokens, cost (USD, when the price is known), time, session id. */
  summary(elapsedMs: number, sessionId: string): string {
    const tokens =
      this.totals.inputTokens === undefined && this.totals.outputTokens === undefined
        ? "tokens not reported"
        : `${this.totals.inputTokens ?? "?"} in / ${this.totals.outputTokens ?? "?"} out tokens`;
    const turns = `${this.totals.turns} turn${this.totals.turns === 1 ? "" : "s"}`;
    const cost = this.totals.cost === undefined ? "" : ` · $${this.totals.cost.toFixed(4)}`;
    return this.paint(
      "2",
      `${turns} · ${tokens}${cost} · ${(elapsedMs / 1000).toFixed(1)} s · session ${sessionId}`,
    );
  }

  /** Ends the answer with a newline if it did not end with one. */
  endLine(): void {
    if (!this.atLineStart) {
      this.stdout.write("\n");
      this.atLineStart = true;
    }
  }

  /** Reply text to stdout; the first after tool calls comes after a blank line, apart from the narration. */
  private answer(text: string): void {
    this.terminal.spinner?.clear();
    if (this.toolsSinceText) {
      this.stdout.write(this.wroteText ? "\n" : "");
      this.toolsSinceText = false;
    }
    this.stdout.write(text);
    this.atLineStart = text.endsWith("\n");
    this.wroteText = true;
  }

  /** Text to stderr, with the waiting line out of the way. */
  private error(text: string): void {
    this.terminal.spinner?.clear();
    this.stderr.write(text);
  }

  get answered(): boolean {
    return this.wroteText;
  }

  private toolLine(toolCallId: string): void {
    this.endLine();
    const toolCall = this.fold.toolCall(toolCallId);
    if (toolCall === undefined) {
      return;
    }
    // Arguments as the call started with them (a call refused before it started has none).
    const callArguments = toolCall.startedAt === undefined ? {} : toolCall.arguments;
    const outcome = toolOutcome(toolCall, callArguments);
    const call = `${toolCall.toolName} ${outcome.label ?? shortArguments(callArguments)}`.trim();
    // The time the user took to answer a permission question is not the tool's.
    const duration = toolCall.durationMs === undefined ? "" : ` (${toolCall.durationMs} ms)`;
    const mark = outcome.failed ? this.paint("31", "✗") : this.paint("32", "✓");
    const detail = outcome.detail === undefined ? "" : ` ${outcome.detail}`;
    const reason = outcome.reason === undefined ? "" : `: ${outcome.reason}`;
    this.error(`${mark} ${this.paint("2", `${call}${detail}${duration}${reason}`)}\n`);
    const shown = this.verbose ? outcome.output : outcome.output.slice(-FAILED_OUTPUT_LINES);
    if (shown.length < outcome.output.length) {
      this.error(
        `${this.paint("2", `    … ${outcome.output.length - shown.length} more lines (--verbose shows all)`)}\n`,
      );
    }
    for (const line of shown) {
      this.error(`${this.paint("2", `    ${line}`)}\n`);
    }
  }

  private note(text: string): void {
    this.endLine();
    this.error(`${this.paint("2", text)}\n`);
  }

  private paint(code: string, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
}

/** `key=value` pairs, each value cut short, the whole at most {@link SHORT_ARGUMENTS_LENGTH}. */
export function shortArguments(parameters: JsonObject): string {
  const text = Object.entries(parameters)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ")
    .replace(/\s+/g, " ");
  return text.length > SHORT_ARGUMENTS_LENGTH
    ? `${text.slice(0, SHORT_ARGUMENTS_LENGTH - 1)}…`
    : text;
}

/** Lines of a failed command's output shown under its tool line without --verbose. */
const FAILED_OUTPUT_LINES = 5;

/** What a tool line says besides the name: a label instead of the arguments, the outcome, output lines. */
interface ToolOutcome {
  failed: boolean;
  label?: string;
  detail?: string;
  /** Why the call failed, after the duration. */
  reason?: string;
  /** Output lines to show under the tool line (a failed command's). */
  output: string[];
}

/**
 * A finished call as the user needs it: a command that failed (the session model's rule: it
 * exited non-zero or was killed) shows its exit code or signal and its output; any other failure
 * its first line; `edit` and `create` show their path and `+added −removed` lines.
 */
function toolOutcome(toolCall: ToolCall, callArguments: JsonObject): ToolOutcome {
  const output = (toolCall.output ?? "").replace(/\s+$/, "");
  const failed = toolCall.status !== "completed";
  if (failed && toolCall.exitCode === undefined && toolCall.signal === undefined) {
    return {
      failed,
      reason: firstLine(toolCall.output ?? toolCall.errorMessage ?? ""),
      output: [],
    };
  }
  if (failed) {
    const detail =
      toolCall.signal === undefined
        ? `failed (exit code ${toolCall.exitCode})`
        : `killed by ${toolCall.signal}`;
    return { failed, detail, output: output === "" ? [] : output.split("\n") };
  }
  const path = typeof callArguments.path === "string" ? callArguments.path : undefined;
  const toolName = toolCall.toolName;
  if (toolName === "edit" && path !== undefined) {
    const { added, removed } = changedLines(
      String(callArguments.old_str ?? ""),
      String(callArguments.new_str ?? ""),
    );
    return { failed: false, label: path, detail: `+${added} −${removed}`, output: [] };
  }
  if (toolName === "create" && path !== undefined) {
    const text = String(callArguments.file_text ?? "");
    return { failed: false, label: path, detail: `+${lineCount(text)}`, output: [] };
  }
  return { failed: false, output: [] };
}

/** Lines added and removed by replacing `before` with `after`, common first and last lines aside. */
export function changedLines(before: string, after: string): { added: number; removed: number } {
  const old = before === "" ? [] : before.split("\n");
  const next = after === "" ? [] : after.split("\n");
  let start = 0;
  while (start < old.length && start < next.length && old[start] === next[start]) {
    start++;
  }
  let end = 0;
  while (
    end < old.length - start &&
    end < next.length - start &&
    old[old.length - 1 - end] === next[next.length - 1 - end]
  ) {
    end++;
  }
  return { added: next.length - start - end, removed: old.length - start - end };
}

function lineCount(text: string): number {
  if (text === "") {
    return 0;
  }
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The first line, at most 160 characters, cut at a word boundary (a hint is never cut mid-word). */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  if (line.length <= 160) {
    return line;
  }
  const cut = line.slice(0, 159);
  const space = cut.lastIndexOf(" ");
  return `${(space > 80 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function add(total: number | undefined, value: number | undefined): number | undefined {
  return value === undefined ? total : (total ?? 0) + value;
}
