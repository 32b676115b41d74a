import { Container, Markdown, Spacer, Text } from "@mariozechner/pi-tui";
import type { SessionEvent } from "../../events/events.js";
import type { Theme } from "./theme.js";
import { ToolCallView } from "./tool-call-view.js";

/** Lines of a prompt shown (a paste or an attached file is counted beyond them). */
const PROMPT_LINES = 8;

/**
 * The conversation on screen, built only from session events (the same ones every face sees):
 * prompts, answers streamed as Markdown, tool calls with their status and outcome, and notes
 * (errors, retries, cancels). Replaying a resumed session's log through {@link handle} draws its
 * history the same way.
 */
export class Transcript extends Container {
  private readonly tools = new Map<string, ToolCallView>();
  /** The answer being streamed: its message id and text so far. */
  private streaming: { messageId: string; text: string; view: Markdown } | undefined;

  constructor(private readonly theme: Theme) {
    super();
  }

  /** Shows a line of the face's own (command output, hints); `error` paints it as a failure. */
  note(text: string, style: "plain" | "dim" | "error" = "dim"): void {
    const paint =
      style === "error" ? this.theme.failure : style === "dim" ? this.theme.dim : String;
    this.addChild(new Text(text.split("\n").map(paint).join("\n"), 0, 0));
  }

  /** Draws one session event. */
  handle(event: SessionEvent): void {
    switch (event.type) {
      case "user.message":
        this.userMessage(event.data.content, event.data.source);
        return;
      case "assistant.message_delta":
        this.delta(event.data.messageId, event.data.deltaContent);
        return;
      case "assistant.message":
        this.finishMessage(event.data.messageId, event.data.content);
        for (const request of event.data.toolRequests) {
          this.tool(request.toolCallId, request.name).setArguments(request.name, request.arguments);
        }
        if (event.data.error !== undefined) {
          this.note(`the reply broke off: ${event.data.error.message}`, "error");
        }
        return;
      case "assistant.tool_call_start":
        // The early announcement: a line as soon as the model starts writing the call.
        this.tool(event.data.toolCallId, event.data.toolName);
        return;
      case "tool.execution_start":
        this.tool(event.data.toolCallId, event.data.toolName).setArguments(
          event.data.toolName,
          event.data.arguments,
        );
        return;
      case "permission.requested":
        this.tool(event.data.toolCallId, event.data.toolName).asking();
        return;
      case "tool.execution_running":
        this.tools.get(event.data.toolCallId)?.running();
        return;
      case "session.mcp_server_status_changed":
        if (event.data.status === "failed") {
          this.note(
            `MCP server ${event.data.serverName} failed: ${event.data.error ?? "no reason given"}`,
            "error",
          );
        }
        return;
      case "session.info":
        this.note(event.data.message);
        return;
      case "session.warning":
        this.note(`warning: ${event.data.message}`, "error");
        return;
      case "session.autopilot_stopped":
        this.note(`autopilot stopped after ${event.data.continues} continues (the cap)`);
        return;
      case "tool.execution_complete":
        this.tool(event.data.toolCallId, event.data.toolName).complete(event);
        return;
      case "assistant.retry":
        this.note(
          `retrying in ${Math.round(event.data.delayMs / 100) / 10}s (attempt ${event.data.attempt}): ${event.data.errorMessage}`,
        );
        return;
      case "session.error":
        this.note(`error: ${event.data.message}`, "error");
        return;
      case "abort":
        this.note("cancelled");
        return;
      case "session.task_complete":
        this.note(`task complete: ${event.data.summary}`, "plain");
        return;
      case "session.resume":
        if (event.data.notice !== undefined) {
          this.note(event.data.notice);
        }
        return;
      case "session.compaction_complete": {
        // As the -p face says it (cli/terminal-renderer.ts): one dim line, or the failure.
        const { success, preCompactionTokens, postCompactionTokens, trigger, error } = event.data;
        if (success) {
          this.note(
            `compacted the conversation (${trigger}): ${preCompactionTokens} → ${postCompactionTokens ?? "?"} tokens`,
          );
        } else {
          this.note(`compaction failed (${trigger}): ${error ?? "unknown error"}`, "error");
        }
        return;
      }
      case "session.idle":
        this.streaming = undefined;
        return;
      case "session.instructions_loaded":
        if (event.data.files.length > 0) {
          this.note(`instructions: ${event.data.files.map((file) => file.path).join(", ")}`);
        }
        return;
      case "session.start":
      case "assistant.turn_start":
      case "assistant.turn_end":
      case "assistant.reasoning_delta":
      case "assistant.usage":
      case "tool.execution_partial_result":
      case "session.model_change":
      case "session.mode_changed":
      case "session.usage_info":
      case "pending_messages.modified":
      case "permission.completed":
      case "session.plan_updated":
      case "session.compaction_start":
      case "external_tool.requested":
      case "external_tool.completed":
      case "hook.start":
      case "hook.end":
        return;
      default:
        unknownEvent(event);
    }
  }

  private userMessage(content: string, source: string): void {
    this.streaming = undefined;
    if (source === "autopilot") {
      this.note("autopilot: keep working");
      return;
    }
    this.addChild(new Spacer(1));
    const lines = content.split("\n");
    const shown = lines
      .slice(0, PROMPT_LINES)
      .map((line, index) => (index === 0 ? `› ${line}` : `  ${line}`));
    if (lines.length > PROMPT_LINES) {
      shown.push(`  … ${lines.length - PROMPT_LINES} more lines`);
    }
    this.addChild(new Text(this.theme.bold(shown.join("\n")), 0, 0));
  }

  private delta(messageId: string, text: string): void {
    if (this.streaming?.messageId !== messageId) {
      const view = new Markdown("", 0, 0, this.theme.markdown);
      this.addChild(new Spacer(1));
      this.addChild(view);
      this.streaming = { messageId, text: "", view };
    }
    this.streaming.text += text;
    this.streaming.view.setText(this.streaming.text);
  }

  private finishMessage(messageId: string, content: string): void {
    if (this.streaming?.messageId === messageId) {
      this.streaming.view.setText(content);
    } else if (content.trim() !== "") {
      this.addChild(new Spacer(1));
      this.addChild(new Markdown(content, 0, 0, this.theme.markdown));
    }
    this.streaming = undefined;
  }

  private tool(toolCallId: string, toolName: string): ToolCallView {
    let view = this.tools.get(toolCallId);
    if (view === undefined) {
      view = new ToolCallView(this.theme, { toolCallId, toolName });
      this.tools.set(toolCallId, view);
      this.addChild(view);
    }
    return view;
  }
}

function unknownEvent(_event: never): void {}
