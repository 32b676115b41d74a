import { retryNote, terminalText, warningLine } from "../events/errors.js";
import { isSdkAppEvent } from "../events/event-categories.js";
import type { SessionEvent, SessionEventOf } from "../events/events.js";
import { SessionFold } from "../session/session-model/session-model.js";
import { mcpStatusNotice } from "../tools/mcp/status-notice.js";
import { abortNote, alwaysRuleNote, compactionNote } from "./event-notes.js";
import { drawnAsPlan, planChecklist } from "./plan-checklist.js";
import { PromptAnswer } from "./prompt-answer.js";
import { type SummaryParts, summaryLine } from "./prompt-totals.js";
import type { TextSink } from "./spinner.js";
import type { NoticeEvent, RendererOptions } from "./terminal-renderer-options.js";
import { toolLines } from "./tool-line.js";

export type { RendererOptions } from "./terminal-renderer-options.js";

/**
 * Renders a session's events for `turnloop -p` in text mode: the final answer on stdout, progress
 * on stderr — each tool call one dim line (name, short arguments or path, ✓/✗ with the outcome — a
 * command's exit code, an edit's `+N −M` — and its duration without the time spent on a
 * permission question), a failed command's last output lines under it, the plan as a checklist
 * each time it changes (`update_plan` has no tool line of its own), the narration of earlier
 * replies, retries and errors. A call's outcome, exit code and duration and the plan are the
 * session model's (src/session/session-model/). Exhaustive: a new event type is placed here.
 */
export class TerminalRenderer {
  /** The session model the tool lines and the plan are read from. */
  private readonly fold = new SessionFold();
  private atLineStart = true;
  private toolsSinceText = false;
  private wroteText = false;
  /** Reply text received and not yet written. */
  private pending = "";
  /** Which reply is the answer (prompt-answer.ts). */
  private readonly promptAnswer = new PromptAnswer();
  /** The checklist last shown, to show the plan only when it changes. */
  private shownPlan = "";

  constructor(
    private readonly stdout: TextSink,
    private readonly stderr: TextSink,
    private readonly color: boolean,
    private readonly options: RendererOptions = {},
  ) {}

  readonly handle = (event: SessionEvent): void => {
    if (event.type !== "assistant.message_delta") {
      // Its fold is for tool calls and the plan: a reply's text pieces would only be joined there.
      this.fold.apply(event);
    }
    if (isSdkAppEvent(event)) {
      return;
    }
    if (this.options.failuresOnly === true) {
      this.failure(event);
      return;
    }
    switch (event.type) {
      case "assistant.message_delta":
        this.delta(event.data.deltaContent);
        return;
      case "assistant.message":
        this.reply(event.data);
        return;
      case "assistant.turn_start":
        this.turnStart();
        return;
      case "tool.execution_start":
        this.options.spinner?.start(`running ${terminalText(event.data.toolName)}`);
        return;
      case "tool.execution_complete":
        this.toolsSinceText = true;
        this.toolLine(event.data.toolCallId);
        return;
      case "tool.execution_partial_result":
        this.liveOutput(event.data.toolCallId);
        return;
      case "tool.execution_progress":
        this.progress(event.data.toolCallId, event.data.progressMessage);
        return;
      case "session.plan_updated":
        this.plan();
        return;
      case "session.idle":
        this.options.spinner?.stop();
        this.flush();
        return;
      case "session.start":
      case "session.resume":
      case "assistant.reasoning_delta":
      case "assistant.tool_call_start":
      case "tool.execution_running":
      case "assistant.turn_end":
      case "assistant.usage":
      case "session.instructions_loaded":
      case "session.compaction_start":
      case "hook.start":
      case "hook.end":
      case "session.info":
        return;
      default:
        this.notice(event);
    }
  };

  /** Another turn: the reply held as the answer was not the last one. */
  private turnStart(): void {
    this.narrate(this.promptAnswer.release());
    this.options.spinner?.start("thinking");
  }

  /** What a call waits on, said at once: its line comes only at its end (a server may take a minute). */
  private progress(toolCallId: string, message: string): void {
    this.note(`${this.fold.toolCall(toolCallId)?.toolName ?? "tool"}: ${message}`);
    this.options.spinner?.start(message);
  }

  /**
   * What `--quiet` still shows, as it shows it otherwise: warnings, an MCP server that failed, a
   * failed compaction, and the tool line of a call refused (for want of a terminal to ask on, or
   * by a rule). Progress, and failures the model handles itself (a command exiting non-zero), are
   * left out; the prompt's error is said with the outcome.
   */
  private failure(event: SessionEvent): void {
    switch (event.type) {
      case "session.warning":
      case "session.mcp_server_status_changed":
        this.notice(event);
        return;
      case "session.compaction_complete":
        if (!event.data.success) {
          this.notice(event);
        }
        return;
      case "tool.execution_complete":
        if (this.fold.toolCall(event.data.toolCallId)?.status === "denied") {
          this.toolLine(event.data.toolCallId);
        }
        return;
      default:
        return;
    }
  }

  /**
   * The pids the prompt's commands named as left running (the session model's
   * `ToolCall.leftRunning`), each once, in the order the calls named them.
   */
  leftRunning(): number[] {
    return [...new Set(this.fold.model.toolCalls.flatMap((call) => call.leftRunning ?? []))];
  }

  /** The closing line on stderr (dim): {@link summaryLine} of the prompt's `totals`. */
  summary(parts: SummaryParts): string {
    return this.paint("2", summaryLine(parts));
  }

  /** Writes the answer held for the end of the prompt, if any, and ends the line. */
  flush(): void {
    // The summary of `task_complete` when its reply had no text (trial finding 6).
    const answer = this.promptAnswer.take();
    if (answer !== undefined) {
      this.answer(this.options.markdown?.(answer) ?? this.stdoutText(answer));
    }
    this.endLine();
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

  /**
   * A piece of the reply: written at once (all replies, plain), kept for its Markdown rendering
   * (all replies, Markdown), or left to `assistant.message`, which carries the whole text: each
   * piece kept there too was a copy of the reply's pieces for nothing (bench/notes/memory30.md).
   */
  private delta(text: string): void {
    if (this.options.allReplies !== true) {
      return;
    }
    if (this.options.markdown === undefined) {
      this.answer(this.stdoutText(text));
      return;
    }
    this.pending += text;
  }

  /** A complete reply: written (all replies), held as the answer, or narration on stderr. */
  private reply(message: SessionEventOf<"assistant.message">["data"]): void {
    this.options.spinner?.stop();
    const streamed = this.pending;
    this.pending = "";
    if (this.options.allReplies === true) {
      if (this.options.markdown !== undefined && streamed.trim() !== "") {
        this.answer(this.options.markdown(streamed));
      }
      this.endLine();
      return;
    }
    const toolCalls = message.toolRequests.length > 0;
    const interrupted = message.interrupted === true;
    this.narrate(this.promptAnswer.reply(message.content, toolCalls, interrupted));
  }

  /** A failed or cancelled prompt has no answer (README): the reply it cut short goes to stderr. */
  unanswered(): void {
    this.narrate(this.promptAnswer.drop());
    this.endLine();
  }

  /** Replies that were not the answer, on stderr. */
  private narrate(texts: readonly string[]): void {
    for (const text of texts) {
      const trimmed = text.trim();
      if (trimmed !== "") {
        this.note(trimmed);
      }
    }
  }

  /** Reply text to stdout; the first after tool calls comes after a blank line, apart from the narration. */
  private answer(text: string): void {
    this.options.spinner?.clear();
    if (this.toolsSinceText) {
      this.stdout.write(this.wroteText ? "\n" : "");
      this.toolsSinceText = false;
    }
    this.stdout.write(text);
    this.atLineStart = text.endsWith("\n");
    this.wroteText = true;
  }

  /** Reply text as stdout takes it: made safe on a terminal, as it came elsewhere. */
  private stdoutText(text: string): string {
    return this.options.stdoutIsTerminal === true ? terminalText(text) : text;
  }

  /** Text to stderr, with the waiting line out of the way. */
  private error(text: string): void {
    this.options.spinner?.clear();
    this.stderr.write(text);
  }

  /**
   * An "always" answer shows its rule (README); a yes starts `running`. A no is said once, by the
   * call's ✗ line, which names the refusal and its reason (it was said twice: a fresh user's check).
   */
  private permissionAnswered(answer: SessionEventOf<"permission.completed">["data"]): void {
    const rule = alwaysRuleNote(answer);
    if (rule !== undefined) {
      this.note(rule);
    }
    if (answer.decision === "allowed") {
      this.options.spinner?.start("running");
    }
  }

  /** The plan as a checklist on stderr, when it differs from the one last shown. */
  private plan(): void {
    const lines = planChecklist(this.fold.model.plan);
    const shown = lines.join("\n");
    if (shown === this.shownPlan) {
      return;
    }
    this.shownPlan = shown;
    this.note(["plan:", ...lines.map((line) => `  ${line}`)].join("\n"));
  }

  /** A server that failed, or gave no answer within a prompt's start-up wait (tools/mcp/servers.ts). */
  private mcpStatus(data: SessionEventOf<"session.mcp_server_status_changed">["data"]): void {
    const notice = mcpStatusNotice(data);
    if (notice !== undefined) {
      this.note(`turnloop: ${notice}`);
    }
  }

  private notice(event: NoticeEvent): void {
    switch (event.type) {
      case "user.message":
        // A nudge: the reply held as the answer was not the last one.
        this.narrate(this.promptAnswer.release());
        if (event.data.source === "autopilot") {
          this.note("autopilot: continuing");
        }
        return;
      case "permission.requested":
        // The question is written to stderr next: no waiting line over it.
        this.options.spinner?.stop();
        return;
      case "permission.completed":
        this.permissionAnswered(event.data);
        return;
      case "assistant.retry":
        this.note(warningLine(retryNote(event.data)));
        return;
      case "session.error":
        // A store that could not take the whole answer leaves it the answer: it is nowhere else.
        if (event.data.errorType !== "storage") {
          this.unanswered();
        }
        this.error(`${this.paint("31", "turnloop")}: ${terminalText(event.data.message)}\n`);
        return;
      case "abort":
        this.unanswered();
        this.note(abortNote(event.data.reason));
        return;
      case "session.task_complete":
        this.promptAnswer.taskComplete(event.data.summary);
        this.note(`task complete: ${event.data.summary}`);
        return;
      case "session.autopilot_stopped":
        this.note(
          `autopilot: the task was not marked complete (stopped after ${event.data.continues} continue${event.data.continues === 1 ? "" : "s"})`,
        );
        return;
      case "session.mcp_server_status_changed":
        this.mcpStatus(event.data);
        return;
      case "session.compaction_complete": // One that compacted nothing: turnloop's own message.
        this.note(`${event.data.success ? "" : "turnloop: "}${compactionNote(event.data).text}`);
        return;
      case "session.warning":
        this.endLine();
        this.error(
          `turnloop: ${this.paint("33", "warning")}: ${terminalText(event.data.message)}\n`,
        );
        return;
      default: {
        // A new event type fails to compile here until the renderer decides how to show it.
        const unhandled: never = event;
        void unhandled;
      }
    }
  }

  private toolLine(toolCallId: string): void {
    this.endLine();
    const toolCall = this.fold.toolCall(toolCallId);
    if (toolCall === undefined || drawnAsPlan(toolCall)) {
      // The plan shows as its checklist (session.plan_updated), not as the call's arguments.
      return;
    }
    const paint = (code: string, text: string) => this.paint(code, text);
    // Output shown as it came (the plain interactive face) is not shown again under the line.
    const live = this.options.liveOutput?.end(toolCall, paint);
    const { line, output, note } = toolLines(toolCall, this.options.verbose, paint);
    const rows = [...(live?.rows ?? []), ...(this.options.wrap?.(line) ?? [line])];
    // The note is no output: shown even after output shown as it came.
    const under = [...(live?.shown ? [] : output), ...note];
    this.error([...rows, ...under].map((row) => `${row}\n`).join(""));
  }

  /** A running command's new output lines, when the face prints them as they come. */
  private liveOutput(toolCallId: string): void {
    const paint = (code: string, text: string) => this.paint(code, text);
    const rows = this.options.liveOutput?.progress(this.fold.toolCall(toolCallId), paint) ?? [];
    if (rows.length > 0) {
      this.endLine();
      this.error(rows.map((row) => `${row}\n`).join(""));
    }
  }

  /**
   * Dim lines on stderr. What they carry from elsewhere (narration, a remote error, a summary)
   * is written without terminal control sequences (events/errors.ts terminalText).
   */
  private note(text: string): void {
    this.endLine();
    const lines = terminalText(text)
      .split("\n")
      .map((line) => this.paint("2", line));
    this.error(`${lines.join("\n")}\n`);
  }

  private paint(code: string, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
}
