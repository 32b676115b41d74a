import { matchesKey } from "@mariozechner/pi-tui";
import { errorMessage } from "../../events/errors.js";
import { COMMANDS, type SessionMode } from "../../session/commands.js";
import type { SessionHost } from "../../session/host.js";
import {
  signalExitCode,
  TERMINATION_SIGNALS,
  type TerminationSignal,
} from "../../session/termination-signals.js";
import { UsageTotals } from "../../session/usage-totals.js";
import type { Controller } from "./controller.js";
import { InputQueue } from "./input-queue.js";
import { EXIT, notSavedLine, openingMode, openSession, type SessionChoice } from "./open.js";
import { readInputHistory } from "./prompt-input.js";
import { restoreTerminal, Screen } from "./screen.js";
import type { ScreenView } from "./screen-view.js";
import type { StatusState } from "./status-line.js";
import { createTheme } from "./theme.js";

/** Two Ctrl-C presses on an empty line within this many ms exit. */
const DOUBLE_PRESS_MS = 2000;

export interface TerminalFaceSettings {
  /**
   * Builds the host (its modules load the session stack and the providers); called once the input
   * box is on the screen, so that loading them does not delay it. Rejects with the message of a
   * bad command line.
   */
  openHost: () => Promise<SessionHost>;
  /** Whether to draw at once: when nothing can fail before the session opens (a model is set). */
  drawAtOnce: boolean;
  /** `$TURNLOOP_HOME`, where the input history and the screen's record of cut rows are kept. */
  home: string;
  /** Shown in the status line until the session's model is known. */
  modelHint: string;
  cwd: string;
  choice: SessionChoice;
  mode: SessionMode;
  /** Whether every tool runs unasked outside mode `ask` (`--allow-all-tools`): the status line says so. */
  fullAccess?: boolean;
  color: boolean;
  /** Sent as the first prompt once the session is open. */
  firstPrompt?: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * What is typed before the session is shown: inputs sent are kept, not lost, and run once it is;
 * Ctrl-C on a line with text clears it, as once the session is shown ({@link interactiveKeys});
 * Ctrl-D or Ctrl-C on an empty line ends the face as soon as the session is open. `stop` hands
 * the keys back.
 */
function earlyInput(screen: Screen): { inputs: string[]; exit: boolean; stop: () => void } {
  const early = { inputs: [] as string[], exit: false, stop: () => {} };
  screen.editor.onSubmit = (text) => early.inputs.push(text);
  early.stop = screen.tui.addInputListener((data) => {
    const interrupt = matchesKey(data, "ctrl+c");
    if (!interrupt && !matchesKey(data, "ctrl+d")) {
      return undefined;
    }
    if (screen.editor.getText() === "") {
      early.exit = true;
    } else if (interrupt) {
      screen.editor.setText("");
      screen.render();
    } else {
      return undefined;
    }
    return { consume: true };
  });
  return early;
}

/**
 * Resolves once pi-tui has written the frame that `start()` asked for: it draws on a zero-delay
 * timer set on the next tick, and timers of the same delay run in the order they were set.
 */
function firstFrameWritten(): Promise<void> {
  return new Promise((resolve) => process.nextTick(() => setTimeout(resolve, 0)));
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
    fullAccess: settings.fullAccess === true,
    usage: new UsageTotals(),
    contextWindow: undefined,
  };
  const screen = new Screen(theme, status, COMMANDS, settings.cwd, settings.home);
  const onProcessExit = () => restoreTerminal();
  process.on("exit", onProcessExit);
  const early = earlyInput(screen);
  const drawnEarly = await prepareInputBox(screen, settings);
  const opening = settings.openHost();
  const failed = async (message: string, code: number) => {
    // A face that drew its box early takes it away first (a session open elsewhere, a bad
    // config): the error alone stays, as when nothing was drawn.
    if (drawnEarly) {
      screen.erase();
      await firstFrameWritten();
    }
    screen.stop();
    process.off("exit", onProcessExit);
    settings.stderr.write(`turnloop: ${message}\n`);
    return code;
  };
  let host: SessionHost;
  try {
    host = await opening;
  } catch (error) {
    return failed(errorMessage(error), EXIT.usage);
  }
  const [{ Controller }, { ScreenView }, opened] = await Promise.all([
    import("./controller.js"),
    import("./screen-view.js"),
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
  const mode = openingMode(host, opened.session, settings.mode);
  const controller = new Controller(host, opened.session, opened.model, mode);
  early.stop();
  const view = new ScreenView(screen, status, controller);
  const code = await untilExit(screen, controller, view, {
    early: early.inputs,
    exitEarly: early.exit,
    ...settings,
  });
  process.off("exit", onProcessExit);
  return code;
}

/**
 * Puts the input history in the box (↑ works from the first key) and, when the box is drawn before
 * the agent's modules load (so typing can start at once), draws it. Whether it was drawn.
 */
async function prepareInputBox(screen: Screen, settings: TerminalFaceSettings): Promise<boolean> {
  for (const entry of await readInputHistory(settings.home)) {
    screen.editor.addToHistory(entry);
  }
  const drawnEarly = settings.drawAtOnce || settings.choice.kind === "pick";
  if (drawnEarly) {
    screen.start();
    await firstFrameWritten();
  }
  return drawnEarly;
}

/**
 * Runs the open session: shows it, sends the first prompt and early inputs, handles the keys, and
 * resolves with the exit code once the face has ended (session closed, terminal given back, the
 * session id printed).
 */
function untilExit(
  screen: Screen,
  controller: Controller,
  view: ScreenView,
  settings: TerminalFaceSettings & { early: string[]; exitEarly: boolean },
): Promise<number> {
  return new Promise<number>((resolve) => {
    let exiting = false;
    const exit = async (code: number, by?: TerminationSignal) => {
      if (exiting) {
        return;
      }
      exiting = true;
      view.stop();
      // A signal from outside is named in the log, as -p does (cli/prompt-stops.ts), and the last
      // frame's status row says how the running prompt or command ended: never "working".
      const ended = await controller.close(by).catch(() => undefined);
      if (ended !== undefined) {
        screen.status.state.hint = ended;
      }
      await screen.lastFrame();
      screen.stop();
      settings.stdout.write(closingLines(controller.session));
      // Heard until the session is closed: a second signal (a closed terminal says SIGHUP, EIO and
      // the input's end) would otherwise get Node's default, exit at once, the lock left behind.
      for (const signal of SIGNALS) {
        process.off(signal, onSignal);
      }
      stopWatchingTerminal();
      resolve(code);
    };
    const onSignal = (signal: TerminationSignal | "SIGINT") => {
      void exit(signalExitCode(signal), signal === "SIGINT" ? undefined : signal);
    };
    for (const signal of SIGNALS) {
      process.on(signal, onSignal);
    }
    const stopWatchingTerminal = watchTerminalGone(settings, () => onSignal("SIGHUP"));
    controller.onExit = () => void exit(EXIT.ok);
    if (settings.exitEarly) {
      void exit(EXIT.ok);
    }
    // Inputs run one after the other: one sent while a prompt runs waits, shown, for its turn.
    const queue = new InputQueue(screen.theme, controller, () => screen.render());
    screen.queue.addChild(queue);
    screen.tui.addInputListener(
      interactiveKeys(screen, controller, queue, () => void exit(EXIT.ok)),
    );
    void controller.attach(view).then(
      () =>
        takeInputs(screen, queue, [...optional(settings.firstPrompt), ...settings.early.splice(0)]),
      // The session's log could not be read back (a store gone right after the open): said once
      // the screen is given back and the session closed, exit 1 — never an unhandled rejection.
      async (error: unknown) => {
        await exit(EXIT.error);
        settings.stderr.write(`turnloop: ${errorMessage(error)}\n`);
      },
    );
  });
}

/** Sends the editor's submissions to `queue`, after `sent` (the first prompt, inputs typed early). */
function takeInputs(screen: Screen, queue: InputQueue, sent: readonly string[]): void {
  screen.editor.onSubmit = (text) => {
    if (text.trim() !== "") {
      screen.editor.addToHistory(text);
    }
    queue.send(text);
  };
  for (const text of sent) {
    screen.editor.onSubmit?.(text);
  }
}

function optional(text: string | undefined): string[] {
  return text === undefined ? [] : [text];
}

/**
 * Calls `gone` when the terminal is gone (its window closed): writes fail with EIO and the input
 * ends (in raw mode Ctrl-D is a key, not an end), what SIGHUP says, which may come after. Unheard,
 * the ended input would let Node exit with 0 and the session's lock left behind.
 * @returns a function that stops watching.
 */
function watchTerminalGone(
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  gone: () => void,
): () => void {
  const onOutputError = (error: NodeJS.ErrnoException) => {
    if (error.code === "EIO") {
      gone();
    }
  };
  streams.stdout.on("error", onOutputError);
  streams.stderr.on("error", onOutputError);
  process.stdin.once("end", gone);
  return () => {
    streams.stdout.off("error", onOutputError);
    streams.stderr.off("error", onOutputError);
    process.stdin.off("end", gone);
  };
}

/** The face's last lines: the session and how to resume it, or that nothing was saved. */
function closingLines(session: Controller["session"]): string {
  const unsaved = notSavedLine(session);
  return unsaved === undefined
    ? `session ${session.id}\nresume it with: turnloop --resume ${session.id}\n`
    : `${unsaved}\n`;
}

/**
 * The face's own keys, seen before the focused input box or question: Esc / Ctrl-C cancel a
 * running prompt and put the queued inputs back in the input box (to edit or send again), Esc
 * apart while the prompt waits for the trust question to begin (the question's no; Ctrl-C then
 * cancels the prompt unbegun and counts as a first press to exit); on an idle line, a question's
 * included, Ctrl-C clears it, twice on an empty line exits, as does Ctrl-D on an empty line. While
 * a prompt runs, Ctrl-D on an empty line is `/exit` typed then: queued (shown as such, taken back
 * by Esc like any queued input), it closes the session once the work before it has ended, never
 * cancelling it (a trial's stray Ctrl-D killed a running command and exited).
 */
function interactiveKeys(
  screen: Screen,
  controller: Controller,
  queue: InputQueue,
  exit: () => void,
) {
  const status = screen.status.state;
  let lastInterrupt = 0;
  return (data: string): { consume: true } | undefined => {
    const interrupt = matchesKey(data, "ctrl+c");
    // A prompt that waits for the trust question to begin has nothing to cancel yet: Esc is
    // the question's no, as its line says, and the prompt then goes on without the servers.
    const questionsEscape = controller.waitsForServers && screen.hasModal;
    if (controller.busy && (interrupt || (matchesKey(data, "escape") && !questionsEscape))) {
      const queued = queue.take();
      // Ctrl-C cancels a prompt that waits for the trust question before it begins: its line
      // says so, and as at an empty line another Ctrl-C exits (the question stays till then).
      const unbegun = interrupt && controller.waitsForServers;
      controller.cancel();
      putBack(screen, queued);
      if (unbegun) {
        lastInterrupt = Date.now();
        status.hint = "press Ctrl-C again to exit";
      }
      screen.render();
      return { consume: true };
    }
    // At a question, Ctrl-C on an empty line is the face's too (a question never takes it).
    if (screen.hasModal && !(interrupt && screen.editor.getText() === "")) {
      return undefined;
    }
    if (status.hint !== undefined) {
      delete status.hint;
      screen.render();
    }
    if (interrupt) {
      if (screen.editor.getText() !== "") {
        screen.editor.setText("");
        // The editor does not redraw itself on setText: the cleared box must show at once.
        screen.render();
      } else if (Date.now() - lastInterrupt < DOUBLE_PRESS_MS) {
        exit();
      } else {
        lastInterrupt = Date.now();
        status.hint = "press Ctrl-C again to exit";
        screen.render();
      }
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && screen.editor.getText() === "") {
      if (controller.busy) {
        queue.send("/exit");
      } else {
        exit();
      }
      return { consume: true };
    }
    return undefined;
  };
}

/** Puts the inputs `queued` (taken back at a cancel) in the input box, before what it holds. */
function putBack(screen: Screen, queued: readonly string[]): void {
  if (queued.length > 0) {
    const typed = screen.editor.getText();
    screen.editor.setText([...queued, ...(typed === "" ? [] : [typed])].join("\n"));
  }
}

/** The signals that end the face: a supervisor's stop, a closed terminal, SIGINT from outside. */
const SIGNALS = [...TERMINATION_SIGNALS, "SIGINT"] as const;
