import { Container, Spacer, Text } from "@mariozechner/pi-tui";
import { retryNote, stoppedNote, terminalText } from "../../events/errors.js";
import { isSdkAppEvent } from "../../events/event-categories.js";
import type { SessionEvent, SessionEventOf, UserMessageData } from "../../events/events.js";
import { attachedFilesLine, givenPrompt, ranEnding } from "../../session/prompt-attachments.js";
import { SessionFold, type ToolCall } from "../../session/session-model/session-model.js";
import { mcpStatusNotice } from "../../tools/mcp/status-notice.js";
import { abortNote, alwaysRuleNote, compactionNote } from "../event-notes.js";
import { StreamedMarkdown } from "../markdown.js";
import { drawnAsPlan, planChecklist } from "../plan-checklist.js";
import { wrapText } from "../text-wrap.js";
import type { ShellRunView } from "./conversation-view.js";
import { type ShellRowsTarget, shellHeading, shellOutput, shellRun } from "./shell-run-rows.js";
import type { Theme } from "./theme.js";
import { ToolCallView } from "./tool-call-view.js";
import { promptRows, ReasoningView } from "./transcript-rows.js";

/** Lines of a prompt shown (a paste or an attached file is counted beyond them). */
const PROMPT_LINES = 8;

/**
 * The conversation on screen, built only from session events (the same ones every face sees):
 * prompts, answers streamed as Markdown, tool calls with their status and outcome, and notes
 * (errors, retries, cancels). Replaying a resumed session's log through {@link handle} draws its
 * history the same way. Tool calls are the session model's (src/session/session-model/).
 */
export class Transcript extends Container {
  /** The session model the tool calls are drawn from. */
  private readonly fold = new SessionFold();
  private readonly tools = new Map<string, ToolCallView>();
  /** The answer being streamed: its message id and its view, which holds its text so far. */
  private streaming: { messageId: string; view: StreamedMarkdown } | undefined;
  private thinking: ReasoningView | undefined;
  /** The plan's checklist block, and its text, to redraw it only when it changes. */
  private planBlock: Container | undefined;
  private shownPlan = "";

  constructor(private readonly theme: Theme) {
    super();
  }

  /**
   * Shows a line of the face's own (command output, hints); `error` paints it as a failure. What
   * it carries from elsewhere (a command's output, a remote error) is drawn without terminal
   * control sequences (events/errors.ts terminalText).
   */
  note(note: string, style: "plain" | "dim" | "error" = "dim"): void {
    const text = terminalText(note);
    const paint =
      style === "error" ? this.theme.failure : style === "dim" ? this.theme.dim : String;
    this.addChild({
      // Wrapped at the width of each draw, lists hanging under their descriptions (text-wrap.ts).
      render: (width: number) => wrapText(text, width).split("\n").map(paint),
      invalidate: () => undefined,
    });
  }

  /** A `!command` runs: its rows (shell-run-rows.ts), live. */
  shellRun(command: string): ShellRunView {
    return shellRun(this.shellRows, command);
  }

  /** Where the `!command`s' rows go (shell-run-rows.ts). */
  private get shellRows(): ShellRowsTarget {
    return {
      container: this,
      theme: this.theme,
      note: (note, style) => this.note(note, style),
      sessionId: () => this.fold.model.sessionId,
    };
  }

  /**
   * Draws one session event; `replayed` when it is the log of a reopened session read back: what
   * the face drew live from what was typed is drawn from the log then, as it was drawn (a
   * prompt's `!command`s, before it; a `/compact`'s heading, before its outcome).
   */
  handle(event: SessionEvent, replayed = false): void {
    const change = this.fold.apply(event);
    if (change.kind === "tool_call") {
      this.tool(change.toolCall);
    }
    if (isSdkAppEvent(event)) {
      return;
    }
    switch (event.type) {
      case "user.message":
        this.userMessage(event.data, replayed, this.fold.model.prompts.at(-1)?.attachedFiles ?? []);
        return;
      case "assistant.message_delta":
        this.delta(event.data.messageId, event.data.deltaContent);
        return;
      case "assistant.reasoning_delta":
        this.thought(event.data.messageId).append(event.data.deltaContent);
        return;
      case "assistant.message":
        this.assistantMessage(event.data, change.kind === "message" ? change.toolCalls : []);
        return;
      case "session.plan_updated":
        this.plan();
        return;
      case "permission.completed":
        this.answered(event.data);
        return;
      // A running command's output so far, under its line until its outcome replaces it.
      case "tool.execution_partial_result":
        this.tools.get(event.data.toolCallId)?.showOutput();
        return;
      case "tool.execution_complete":
        this.tools.get(event.data.toolCallId)?.endOutput();
        return;
      case "session.idle":
        this.streaming = undefined;
        return;
      case "assistant.turn_end":
        this.turnEnded(event.data, replayed);
        return;
      // The call's line (drawn above from the session model): as soon as the model starts
      // writing the call, then its arguments, the question, running, the outcome.
      case "assistant.tool_call_start":
      case "tool.execution_start":
      case "permission.requested":
      case "tool.execution_running":
      case "tool.execution_progress":
      case "session.start":
      case "assistant.turn_start":
      case "assistant.usage":
      case "session.compaction_start":
      case "hook.start":
      case "hook.end":
        return;
      default:
        this.aboveAskedCalls(() => this.notice(event, replayed));
    }
  }

  /**
   * Draws `draw`'s rows above the lines of the calls not yet started (drawn with their reply):
   * what the log has between a reply and its calls' start is drawn in the log's order, as `-p` does.
   */
  private aboveAskedCalls(draw: () => void): void {
    const asked: ToolCallView[] = [];
    for (const child of this.children.toReversed()) {
      if (!(child instanceof ToolCallView) || !child.pending) {
        break;
      }
      asked.unshift(child);
    }
    draw();
    for (const view of asked) {
      this.removeChild(view);
      this.addChild(view);
    }
  }

  /** A limit's stop, said live on the status line (controller.ts), is drawn back from the log. */
  private turnEnded(data: SessionEventOf<"assistant.turn_end">["data"], replayed: boolean): void {
    const note =
      replayed && data.stopReason !== undefined ? stoppedNote(data.stopReason) : undefined;
    if (note !== undefined) {
      this.note(note);
    }
  }

  /**
   * An "always" answer shows the rule it creates (README, "Permission questions"), under the
   * call's line: right after the answer, above what the tool then did.
   */
  private answered(data: SessionEventOf<"permission.completed">["data"]): void {
    const note = alwaysRuleNote(data);
    const view = this.tools.get(data.toolCallId);
    if (note !== undefined && view !== undefined) {
      view.answerNote = note;
    } else if (note !== undefined) {
      this.note(note);
    }
  }

  /** Events shown as one note each (a replayed `/compact`, with its heading). */
  private notice(event: NoticeEvent, replayed: boolean): void {
    switch (event.type) {
      case "session.mcp_server_status_changed": {
        // In every face's words (tools/mcp/servers.ts); the session's log line is left out here.
        const notice = mcpStatusNotice(event.data);
        if (notice !== undefined) {
          this.note(notice, event.data.status === "failed" ? "error" : undefined);
        }
        return;
      }
      case "session.info":
        this.note(event.data.message);
        return;
      case "session.warning":
        this.note(`warning: ${event.data.message}`, "error");
        return;
      case "session.autopilot_stopped":
        this.note(`autopilot stopped after ${event.data.continues} continues (the cap)`);
        return;
      case "assistant.retry":
        this.note(retryNote(event.data));
        return;
      case "session.error":
        this.note(`error: ${event.data.message}`, "error");
        return;
      case "abort":
        this.note(abortNote(event.data.reason));
        return;
      case "session.task_complete":
        this.note(`task complete: ${event.data.summary}`, "plain");
        return;
      case "session.resume":
        if (event.data.notice !== undefined) {
          this.note(event.data.notice);
        }
        return;
      case "session.compaction_complete":
        this.compacted(event.data, replayed);
        return;
      case "session.instructions_loaded":
        if (event.data.files.length > 0) {
          this.note(`instructions: ${event.data.files.map((file) => file.path).join(", ")}`);
        }
        return;
      default:
        unknownEvent(event);
    }
  }

  /**
   * A compaction's outcome, as the -p face says it (event-notes.ts): one dim line, or the failure.
   * A `/compact` of a reopened session is headed by the command, as the controller headed it
   * when it was typed (controller.ts `commandNote`: a blank row, then the command, dim).
   */
  private compacted(
    data: SessionEventOf<"session.compaction_complete">["data"],
    replayed: boolean,
  ): void {
    if (replayed && data.trigger === "manual") {
      const instructions = data.customInstructions?.trim() ?? "";
      this.note(`\n/compact${instructions === "" ? "" : ` ${instructions}`}`);
    }
    const { text, failed } = compactionNote(data);
    this.note(text, failed ? "error" : "dim");
  }

  /**
   * The plan as one checklist block (☐ pending, ◐ in progress, ☑ done) from the session model.
   * A change redraws that block below the latest output; the earlier one is removed, so the
   * transcript holds one plan, the current one. An unchanged plan draws nothing.
   */
  private plan(): void {
    const plan = this.fold.model.plan;
    const lines = planChecklist(plan);
    const text = lines.join("\n");
    if (text === this.shownPlan) {
      return;
    }
    this.shownPlan = text;
    if (this.planBlock !== undefined) {
      this.removeChild(this.planBlock);
      this.planBlock = undefined;
    }
    if (lines.length === 0) {
      return;
    }
    const { theme } = this;
    const painted = lines.map((line, index) => {
      const status = plan[index]?.status;
      return status === "completed"
        ? theme.dim(line)
        : status === "in_progress"
          ? theme.bold(line)
          : line;
    });
    const block = new Container();
    block.addChild(new Spacer(1));
    block.addChild(new Text([theme.dim("plan"), ...painted].join("\n"), 0, 0));
    this.planBlock = block;
    this.addChild(block);
  }

  /**
   * A prompt as it was given, then the line naming the `@file`s it attached (`files`, from the
   * session model; dim, under it). The
   * `!command`s before it (session/prompt-attachments.ts) were drawn when they ran, so only a
   * replayed log draws them here, as they were then; the model's copy of their output and of the
   * files is not shown.
   */
  private userMessage(data: UserMessageData, replayed: boolean, files: readonly string[]): void {
    this.streaming = undefined;
    if (data.source === "autopilot") {
      this.note("autopilot: keep working");
      return;
    }
    const { runs, text, attached } = givenPrompt(data);
    for (const run of replayed ? runs : []) {
      shellHeading(this.shellRows, run.command);
      shellOutput(this.shellRows, run.output);
      this.note(ranEnding(run));
    }
    this.addChild(new Spacer(1));
    const lines = [...terminalText(text).split("\n"), ...attached.map(terminalText)];
    const shown = lines.slice(0, PROMPT_LINES);
    if (lines.length > PROMPT_LINES) {
      shown.push(`… ${lines.length - PROMPT_LINES} more lines`);
    }
    const paint = this.theme.bold;
    this.addChild({
      render: (width: number) => promptRows(shown, width).map(paint),
      invalidate: () => undefined,
    });
    const filesLine = attachedFilesLine(files);
    if (filesLine !== undefined) {
      this.note(filesLine);
    }
  }

  /**
   * A reply ends: its reasoning's row (set whole: a reopened session has no deltas), its text,
   * then its calls' lines. A reply cut by a failure (`error`) is followed by the prompt's
   * `session.error`, whose line says why, once (as -p says it): the cut text stands above it.
   */
  private assistantMessage(
    data: SessionEventOf<"assistant.message">["data"],
    toolCalls: readonly ToolCall[],
  ): void {
    if (data.reasoning?.trim()) {
      this.thought(data.messageId).set(data.reasoning);
    }
    this.finishMessage(data.messageId, data.content);
    for (const toolCall of toolCalls) {
      this.tool(toolCall);
    }
  }

  /** The reasoning row of the reply `messageId`, added below everything else when first needed. */
  private thought(messageId: string): ReasoningView {
    if (this.thinking?.messageId !== messageId) {
      this.thinking = new ReasoningView(messageId, this.theme.dim);
      this.addChild(new Spacer(1));
      this.addChild(this.thinking);
    }
    return this.thinking;
  }

  private delta(messageId: string, text: string): void {
    if (this.streaming?.messageId !== messageId) {
      const view = new StreamedMarkdown(this.theme.markdown);
      this.addChild(new Spacer(1));
      this.addChild(view);
      this.streaming = { messageId, view };
    }
    this.streaming.view.append(text);
  }

  private finishMessage(messageId: string, content: string): void {
    if (this.streaming?.messageId === messageId) {
      this.streaming.view.setText(content);
    } else if (content.trim() !== "") {
      this.addChild(new Spacer(1));
      this.addChild(new StreamedMarkdown(this.theme.markdown, content));
    }
    this.streaming = undefined;
  }

  /** The view of a call, added below everything else when the call is first seen. */
  private tool(toolCall: ToolCall): void {
    if (drawnAsPlan(toolCall)) {
      // The plan shows as its checklist (session.plan_updated), not as the call's arguments.
      return;
    }
    if (!this.tools.has(toolCall.toolCallId)) {
      const view = new ToolCallView(this.theme, toolCall, () => this.fold.model.sessionId);
      this.tools.set(toolCall.toolCallId, view);
      this.addChild(view);
    }
  }
}

function unknownEvent(_event: never): void {}

/** Events that are one note each. */
type NoticeEvent = Extract<
  SessionEvent,
  {
    type:
      | "session.mcp_server_status_changed"
      | "session.info"
      | "session.warning"
      | "session.autopilot_stopped"
      | "assistant.retry"
      | "session.error"
      | "abort"
      | "session.task_complete"
      | "session.resume"
      | "session.compaction_complete"
      | "session.instructions_loaded";
  }
>;
