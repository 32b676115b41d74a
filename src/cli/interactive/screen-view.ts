import { isKeyRelease, matchesKey } from "@mariozechner/pi-tui";
import type { SessionEvent } from "../../events/events.js";
import type { PermissionReply, PermissionRequest } from "../../permissions/permission-decision.js";
import type { SessionSummary } from "../../session/session-store.js";
import type { Controller } from "./controller.js";
import type { ConversationView, ShellRunView } from "./conversation-view.js";
import { type BoundQuestion, PermissionQuestion, YesNoQuestion } from "./question.js";
import type { Screen } from "./screen.js";
import type { StatusState } from "./status-line.js";
import { Transcript } from "./transcript.js";

/** How often the status line and running tools redraw while busy (ms); idle draws nothing. */
const BUSY_TICK_MS = 500;

/**
 * The conversation drawn on the full screen: the transcript (put in the screen's conversation
 * place here, once the session is open), the status line, questions.
 */
export class ScreenView implements ConversationView {
  private ticker: NodeJS.Timeout | undefined;
  /** The open session's transcript: each session opened gets a new one ({@link clear}). */
  private transcript: Transcript;

  constructor(
    private readonly screen: Screen,
    private readonly status: StatusState,
    private readonly controller: Controller,
  ) {
    this.transcript = new Transcript(screen.theme);
    screen.conversation.addChild(this.transcript);
  }

  history(events: readonly SessionEvent[]): void {
    for (const event of events) {
      this.transcript.handle(event, true);
    }
    this.screen.render();
  }

  show(event: SessionEvent): void {
    this.transcript.handle(event);
    this.screen.render();
  }

  note(text: string, style?: "plain" | "dim" | "error"): void {
    this.transcript.note(text, style);
    this.screen.render();
  }

  /**
   * Another session is drawn in a new transcript: all the old one holds per session (its
   * session model, its calls' views by tool call id, the answer streaming, the plan shown) is
   * dropped with it. Kept, the next session's calls whose ids it had drawn were not drawn at all
   * (ids a server numbers per conversation come again), nor a plan equal to the one shown
   * (trial 40).
   */
  clear(): void {
    const { conversation, theme, tui } = this.screen;
    conversation.removeChild(this.transcript);
    this.transcript = new Transcript(theme);
    conversation.addChild(this.transcript);
    tui.requestRender(true);
  }

  restoreInput(text: string): void {
    const { editor } = this.screen;
    const typed = editor.getText();
    editor.setText(typed === "" ? text : `${text}\n${typed}`);
    // The editor does not redraw itself on setText (terminal-face.ts).
    this.screen.render();
  }

  statusChanged(): void {
    const { controller, screen } = this;
    Object.assign(this.status, {
      model: controller.model.id,
      mode: controller.mode,
      sandbox: controller.sandbox,
      usage: controller.usage,
      contextWindow: controller.contextWindow,
      busySince: controller.busySince,
      promptWaits: controller.waitsForServers,
    });
    if (controller.busy) {
      // Running: the row says "working", not what ended the prompt before.
      delete this.status.hint;
    } else {
      // A prompt a limit stopped says so in the row until the next key (terminal-face.ts).
      const ending = controller.takeEnding();
      if (ending !== undefined) {
        this.status.hint = ending;
      }
    }
    if (controller.busy && this.ticker === undefined) {
      this.ticker = setInterval(() => screen.render(), BUSY_TICK_MS);
    } else if (!controller.busy) {
      this.stop();
    }
    screen.render();
  }

  /** Shows the question over the input box until it is answered or the prompt is cancelled. */
  readonly ask = (request: PermissionRequest, signal: AbortSignal): Promise<PermissionReply> =>
    new Promise<PermissionReply>((resolve) => {
      const finish = (reply: PermissionReply) => {
        signal.removeEventListener("abort", onAbort);
        close();
        resolve(reply);
      };
      const onAbort = () => finish({ decision: "cancelled" });
      signal.addEventListener("abort", onAbort, { once: true });
      const close = this.openQuestion(new PermissionQuestion(this.screen.theme, request, finish));
    });

  /** Shows the question over the input box until `y` or `n` is confirmed with Enter (Esc: no). */
  confirm(lines: readonly string[]): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const close = this.openQuestion(
        new YesNoQuestion(this.screen.theme, lines, (yes) => {
          close();
          resolve(yes);
        }),
      );
    });
  }

  /**
   * Shows `question` over the input box and routes the keys between them (question.ts
   * {@link BoundQuestion}): the input box has them while it holds text (a question that appears
   * while a message is being written waits for it to be sent or cleared), the question
   * otherwise, and a key it does not take as an answer goes, with the choice keys before it, to
   * the input box. The question's last line says which of them has the keys, and the status line
   * shows the keys of the one that has them (status-line.ts). Esc refuses the
   * question even while the input box has the keys, and leaves its text there (unless it closes
   * the box's completion list). Esc and Ctrl-C while a prompt runs are the face's before either
   * (terminal-face.ts), Esc apart while that prompt waits for the question to begin.
   * @returns what closes the question and gives the keys back to the input box.
   */
  private openQuestion(question: BoundQuestion): () => void {
    const { screen } = this;
    const editor = screen.editor;
    let open = true;
    const giveKeys = () => {
      if (!open) {
        return;
      }
      question.waiting = editor.getText() !== "";
      screen.tui.setFocus(question.waiting ? editor : question);
      screen.setModalKeys(question.statusKeys(), question.escapeKey);
    };
    screen.openModal(question, question.statusKeys(), question.escapeKey);
    giveKeys();
    const stop = screen.tui.addInputListener((data) => {
      if (isKeyRelease(data)) {
        // pi-tui hands neither the input box nor a question a key's release.
        return { consume: true };
      }
      if (question.waiting) {
        if (matchesKey(data, "ctrl+c")) {
          // As on an idle line (terminal-face.ts): Ctrl-C clears the text being written.
          editor.setText("");
        } else if (matchesKey(data, "escape") && !editor.isShowingAutocomplete()) {
          // Esc is the question's refusal whoever has the keys (a no, as at an approval in
          // Claude Code or Codex); the message being written stays in the input box.
          question.take(data);
        } else {
          editor.handleInput(data);
        }
      } else {
        for (const key of question.take(data) ?? []) {
          editor.handleInput(key);
        }
      }
      giveKeys();
      screen.render();
      return { consume: true };
    });
    return () => {
      open = false;
      stop();
      screen.closeModal();
    };
  }

  pickSession(sessions: readonly SessionSummary[], title: string): Promise<string | undefined> {
    return this.screen.pickSession(sessions, title);
  }

  shellRun(command: string): ShellRunView {
    const run = this.transcript.shellRun(command);
    this.screen.render();
    return {
      progress: (output) => {
        run.progress(output);
        this.screen.render();
      },
      end: (output) => {
        run.end(output);
        this.screen.render();
      },
    };
  }

  /** Stops the busy redraws. */
  stop(): void {
    if (this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}
