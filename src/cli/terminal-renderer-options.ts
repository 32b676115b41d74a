import type { SessionEvent } from "../events/events.js";
import type { MarkdownRenderer } from "./markdown.js";
import type { LiveCommandOutput } from "./output-follower.js";
import type { Spinner } from "./spinner.js";

/** How a `TerminalRenderer` (terminal-renderer.ts) shows a prompt. */
export interface RendererOptions {
  /** Show every line of a failed command's output instead of the last few. */
  verbose?: boolean;
  /**
   * Every reply's text goes to stdout as it streams (`-p --verbose`, the plain interactive face).
   * Otherwise stdout gets only the final answer (the prompt's last reply without tool calls,
   * written when the prompt ends) and earlier replies go to stderr as progress, as `claude -p`.
   */
  allReplies?: boolean;
  /** When stdout is a terminal: each answer rendered as Markdown once complete. */
  markdown?: MarkdownRenderer;
  /**
   * stdout is a terminal: reply text is written without terminal control sequences
   * (events/errors.ts terminalText). Otherwise it is data, written as the model sent it.
   */
  stdoutIsTerminal?: boolean;
  /** When stderr is a terminal: the waiting line. */
  spinner?: Spinner;
  /**
   * When stderr is a terminal: a tool line as rows of its width, broken between words (the
   * terminal would break it mid-word); the output lines under it are shown as the command wrote them.
   */
  wrap?: (line: string) => string[];
  /**
   * The plain interactive face: a running command's output lines are printed as they come
   * (output-follower.ts). Given by that face, so that `-p`, which shows a call as one line when
   * it ends, does not load it.
   */
  liveOutput?: LiveCommandOutput;
  /** `--quiet`: only what the user must act on (`failure` below); answer and summary are the caller's. */
  failuresOnly?: boolean;
}

/** Events that are a note on stderr, or move the waiting line. */
export type NoticeEvent = Extract<
  SessionEvent,
  {
    type:
      | "user.message"
      | "permission.requested"
      | "permission.completed"
      | "assistant.retry"
      | "session.error"
      | "abort"
      | "session.task_complete"
      | "session.autopilot_stopped"
      | "session.mcp_server_status_changed"
      | "session.compaction_complete"
      | "session.warning";
  }
>;
