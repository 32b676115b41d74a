import { matchesKey } from "@mariozechner/pi-tui";
import type { PermissionReply } from "../../agent/permission-gate.js";
import { errorMessage } from "../../events/errors.js";
import { COMMANDS, type SessionMode } from "../../session/commands.js";
import type { SessionHost } from "../../session/host.js";
import { UsageTotals } from "../../session/usage-totals.js";
import type { ConversationView } from "./controller.js";
import { EXIT, openSession, type SessionChoice } from "./open.js";
import { readInputHistory } from "./prompt-input.js";
import { PermissionQuestion } from "./question.js";
import { restoreTerminal, Screen } from "./screen.js";
import { contextWindowOf, type StatusState } from "./status-line.js";
import { createTheme } from "./theme.js";

/** Two Ctrl-C presses on an empty line within this many ms exit. */
const DOUBLE_PRESS_MS = 2000;
/** How often the status line and running tools redraw while busy (ms); idle draws nothing. */
const BUSY_TICK_MS = 500;

export interface TerminalFaceSettings {
  /**
   * The host, still being built while the input box is drawn (its modules load the providers);
   * rejects with the message of a bad command line.
   */
  host: Promise<SessionHost>;
  /** Whether to draw at once: when nothing can fail before the session opens (a model is set). */
  drawAtOnce: boolean;
  /** Shown in the status line until the session's model is known. */
  modelHint: string;
  cwd: string;
  choice: SessionChoice;
  mode: SessionMode;
  color: boolean;
  /** Sent as the first prompt once the session is open. */
  firstPrompt?: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * The full-screen interactive face: opens the session (with a picker for `--resume`), shows its
 * history, and runs until `/exit`, Ctrl-D or a second Ctrl-C on an empty line. Prints the session
 * id on the way out. The terminal is restored on every exit, a crash and a signal included.
 * @returns the exit code.
 */
export async function runTerminalFace(settings: TerminalFaceSettings): Promise<number> {
  const theme = createTheme(settings.color);
  const status: StatusState = {
    model: settings.modelHint,
    mode: settings.mode,
    usage: new UsageTotals(),
    contextWindow: undefined,
  };
  const screen = new Screen(theme, status, COMMANDS, settings.cwd);
  const onProcessExit = () => restoreTerminal();
  process.on("exit", onProcessExit);
  // Inputs sent before the session is shown are kept, not lost, and run once it is.
  const early: string[] = [];
  screen.editor.onSubmit = (text) => early.push(text);
  // Ctrl-D (or Ctrl-C) before then ends the face as soon as the session is open.
  let exitEarly = false;
  const removeEarlyKeys = screen.tui.addInputListener((data) => {
    if (matchesKey(data, "ctrl+d") || matchesKey(data, "ctrl+c")) {
      exitEarly = true;
      return { consume: true };
    }
    return undefined;
  });
  // The input box is drawn before the agent's modules load, so typing can start at once.
  const drawnEarly = settings.drawAtOnce || settings.choice.kind === "pick";
  if (drawnEarly) {
    screen.start();
  }
  const failed = (message: string, code: number) => {
    screen.stop();
    process.off("exit", onProcessExit);
    settings.stderr.write(`turnloop: ${message}\n`);
    return code;
  };
  let host: SessionHost;
  try {
    host = await settings.host;
  } catch (error) {
    return failed(errorMessage(error), EXIT.usage);
  }
  const [{ Controller }, opened] = await Promise.all([
    import("./controller.js"),
    openSession(host, settings.cwd, settings.choice, (sessions) =>
      screen.pickSession(sessions, "Resume a session of this folder"),
    ),
  ]);
  if (!opened.ok) {
    return failed(opened.message, opened.code);
  }
  if (!drawnEarly) {
    screen.start();
  }
  const controller = new Controller(host, opened.session, opened.model, settings.mode);
  for (const entry of await readInputHistory(host.home)) {
    screen.editor.addToHistory(entry);
  }
  let ticker: NodeJS.Timeout | undefined;
  const view: ConversationView = {
    history: (events) => {
      for (const event of events) {
        screen.transcript.handle(event);
      }
      screen.render();
    },
    show: (event) => {
      screen.transcript.handle(event);
      screen.render();
    },
    note: (text, style) => {
      screen.transcript.note(text, style);
      screen.render();
    },
    clear: () => {
      screen.transcript.clear();
      screen.tui.requestRender(true);
    },
    statusChanged: () => {
      Object.assign(status, {
        model: controller.model.id,
        mode: controller.mode,
        usage: controller.usage,
        contextWindow: contextWindowOf(controller.model.id, host.env),
        busySince: controller.busySince,
      });
      screen.editor.disableSubmit = controller.busy;
      if (controller.busy && ticker === undefined) {
        ticker = setInterval(() => screen.render(), BUSY_TICK_MS);
      } else if (!controller.busy && ticker !== undefined) {
        clearInterval(ticker);
        ticker = undefined;
      }
      screen.render();
    },
    ask: (request, signal) =>
      new Promise<PermissionReply>((resolve) => {
        const finish = (reply: PermissionReply) => {
          signal.removeEventListener("abort", onAbort);
          screen.closeModal();
          resolve(reply);
        };
        const onAbort = () => finish({ decision: "cancelled" });
        signal.addEventListener("abort", onAbort, { once: true });
        screen.openModal(new PermissionQuestion(theme, request, finish));
      }),
    pickSession: (sessions, title) => screen.pickSession(sessions, title),
  };
  return new Promise<number>((resolve) => {
    let exiting = false;
    const exit = async (code: number) => {
      if (exiting) {
        return;
      }
      exiting = true;
      for (const signal of SIGNALS) {
        process.off(signal, onSignal);
      }
      if (ticker !== undefined) {
        clearInterval(ticker);
      }
      await controller.close().catch(() => undefined);
      screen.stop();
      process.off("exit", onProcessExit);
      settings.stdout.write(
        `session ${controller.session.id}\nresume it with: turnloop --resume ${controller.session.id}\n`,
      );
      resolve(code);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      void exit(128 + (SIGNAL_NUMBERS[signal] ?? 15));
    };
    for (const signal of SIGNALS) {
      process.on(signal, onSignal);
    }
    controller.onExit = () => void exit(EXIT.ok);
    removeEarlyKeys();
    if (exitEarly) {
      void exit(EXIT.ok);
    }
    let lastInterrupt = 0;
    screen.tui.addInputListener((data) => {
      const interrupt = matchesKey(data, "ctrl+c");
      if (controller.busy && (interrupt || matchesKey(data, "escape"))) {
        controller.cancel();
        return { consume: true };
      }
      if (screen.hasModal) {
        return undefined;
      }
      if (status.hint !== undefined) {
        delete status.hint;
        screen.render();
      }
      if (interrupt) {
        if (screen.editor.getText() !== "") {
          screen.editor.setText("");
          return { consume: true };
        }
        if (Date.now() - lastInterrupt < DOUBLE_PRESS_MS) {
          void exit(EXIT.ok);
        } else {
          lastInterrupt = Date.now();
          Object.assign(status, { hint: "press Ctrl-C again to exit" });
          screen.render();
        }
        return { consume: true };
      }
      if (matchesKey(data, "ctrl+d") && screen.editor.getText() === "") {
        void exit(EXIT.ok);
        return { consume: true };
      }
      return undefined;
    });
    void controller.attach(view).then(async () => {
      if (settings.firstPrompt !== undefined) {
        screen.editor.addToHistory(settings.firstPrompt);
        await controller.submit(settings.firstPrompt);
      }
      for (const text of early.splice(0)) {
        screen.editor.addToHistory(text);
        await controller.submit(text);
      }
      screen.editor.onSubmit = (text) => {
        if (text.trim() !== "") {
          screen.editor.addToHistory(text);
        }
        void controller.submit(text);
      };
    });
  });
}

const SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT"];
const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
};
