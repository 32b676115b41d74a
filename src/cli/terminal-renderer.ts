import type { JsonObject, SessionEvent } from "../events/events.js";

/** Something to write to: `process.stdout` / `process.stderr` or a test buffer. */
export interface TextSink {
  write(text: string): unknown;
}

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
 * tool call is one dim line on stderr (name, short arguments, ok/failed, duration); retries and
 * errors go to stderr. Exhaustive over event types, so a new event type must be placed here.
 */
export class TerminalRenderer {
  private readonly toolStarts = new Map<string, { time: number; arguments: JsonObject }>();
  private atLineStart = true;
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
  ) {}

  readonly handle = (event: SessionEvent): void => {
    switch (event.type) {
      case "assistant.message_delta":
        this.stdout.write(event.data.deltaContent);
        this.atLineStart = event.data.deltaContent.endsWith("\n");
        this.wroteText = true;
        return;
      case "assistant.message":
        this.endLine();
        return;
      case "assistant.turn_start":
        this.totals.turns++;
        return;
      case "assistant.usage":
        this.totals.inputTokens = add(this.totals.inputTokens, event.data.inputTokens);
        this.totals.outputTokens = add(this.totals.outputTokens, event.data.outputTokens);
        this.totals.cost = add(this.totals.cost, event.data.cost);
        return;
      case "tool.execution_start":
        this.toolStarts.set(event.data.toolCallId, {
          time: Date.parse(event.timestamp),
          arguments: event.data.arguments,
        });
        return;
      case "tool.execution_complete":
        this.toolLine(event);
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
        this.stderr.write(`${this.paint("31", "error")}: ${event.data.message}\n`);
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
      case "permission.completed":
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
      case "permission.requested":
      case "session.plan_updated":
      case "session.compaction_start":
      case "session.compaction_complete":
      case "session.idle":
      case "external_tool.requested":
      case "external_tool.completed":
      case "hook.start":
      case "hook.end":
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

  get answered(): boolean {
    return this.wroteText;
  }

  private toolLine(event: Extract<SessionEvent, { type: "tool.execution_complete" }>): void {
    this.endLine();
    const started = this.toolStarts.get(event.data.toolCallId);
    this.toolStarts.delete(event.data.toolCallId);
    const call = `${event.data.toolName} ${shortArguments(started?.arguments ?? {})}`.trim();
    const duration =
      started === undefined ? "" : ` (${Date.parse(event.timestamp) - started.time} ms)`;
    const mark = event.data.success ? this.paint("32", "✓") : this.paint("31", "✗");
    const detail = event.data.success ? "" : `: ${firstLine(event.data.result.content)}`;
    this.stderr.write(`${mark} ${this.paint("2", `${call}${duration}${detail}`)}\n`);
  }

  private note(text: string): void {
    this.endLine();
    this.stderr.write(`${this.paint("2", text)}\n`);
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

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function add(total: number | undefined, value: number | undefined): number | undefined {
  return value === undefined ? total : (total ?? 0) + value;
}
