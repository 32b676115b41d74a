import { isNothingToCompact } from "../../agent/compaction.js";
import { cancelReason, errorMessage, USER_CANCEL_REASON } from "../../events/errors.js";
import type { SessionEvent } from "../../events/events.js";
import {
  COMMANDS,
  type CommandOutcome,
  parseCommandLine,
  type SessionMode,
} from "../../session/commands.js";
import type { SessionHost } from "../../session/host.js";
import { isEmptyPrompt } from "../../session/prompt-attachments.js";
import { permissionModeOf } from "../../session/sandbox-setup.js";
import type { Session, SessionAgentSettings } from "../../session/session.js";
import { UsageTotals } from "../../session/usage-totals.js";
import type { SandboxPolicy } from "../../tools/sandbox/policy.js";
import { abortNote, INTERACTIVE_GO_ON, outcomeNote } from "../event-notes.js";
import { commandBody, unknownCommandText } from "./command-output.js";
import { type ConversationView, failedPromptEnding } from "./conversation-view.js";
import * as open from "./open.js";
import * as promptInput from "./prompt-input.js";

/**
 * What the interactive face does with what the user typed: prompts go to the session (with
 * `@path` files attached and earlier `!command` output offered as context), `/commands` run from
 * the shared command set, `!commands` run in a shell. It holds the open session, its model and
 * mode; the loop itself is the session's.
 */
export class Controller {
  session: Session;
  model: open.FaceModel;
  mode: SessionMode;
  usage = new UsageTotals();
  /** `Date.now()` when the running prompt or shell command started. */
  busySince: number | undefined;
  /** Set by `/exit`: the face should end. */
  onExit: () => void = () => undefined;
  private view: ConversationView | undefined;
  private unsubscribe: () => void = () => undefined;
  /** Cancels a running `!command` (prompts are cancelled through the session). */
  private shell: AbortController | undefined;
  /** `!command` results not yet sent to the model; they go with the next prompt. */
  private context: string[] = [];
  private work: Promise<void> = Promise.resolve();
  /** The session's MCP servers being started, which a prompt waits for (open.ts). */
  private readonly servers = new open.ServersStart();

  constructor(
    private readonly host: SessionHost,
    session: Session,
    model: open.FaceModel,
    mode: SessionMode,
  ) {
    this.session = session;
    this.model = model;
    this.mode = mode;
  }

  get busy(): boolean {
    return this.busySince !== undefined;
  }

  /** Whether the running prompt waits for the MCP servers, so their trust question: not begun. */
  get waitsForServers(): boolean {
    return this.servers.waited;
  }

  /** Shows the session's history from its log, then follows its events. */
  async attach(view: ConversationView): Promise<void> {
    this.view = view;
    await this.follow(this.session);
  }

  /** Handles one submitted input. Resolves when its prompt, command or shell run has ended. */
  submit(text: string): Promise<void> {
    const input = text.trim();
    if (isEmptyPrompt(input, 0) || this.busy) {
      return this.work;
    }
    // Not waited for, never rejects: the input history is a convenience (prompt-input.ts).
    void promptInput.saveInput(this.host.home, input);
    this.work = this.dispatch(input).catch((error: unknown) => {
      this.view?.note(`error: ${errorMessage(error)}`, "error");
    });
    return this.work;
  }

  /** Resolves when the input running now (prompt, command or shell run) has ended. */
  idle(): Promise<void> {
    return this.work;
  }

  /**
   * The context window of the current model (tokens), as compaction sees it
   * (`contextWindowOf`: `--context-window`, `TURNLOOP_CONTEXT_WINDOW`, the config files'
   * `contextWindows`, the catalogue).
   */
  get contextWindow(): number {
    return this.host.contextWindowOf(this.model.id);
  }

  /**
   * Cancels the running prompt, compaction or shell command (the ACP-style cancel), by the user
   * or, named in the log, `by` a signal from outside (`SIGTERM`, `SIGHUP`).
   */
  cancel(by?: string): void {
    this.shell?.abort();
    this.servers.cancel();
    this.session.cancel(by);
  }

  /**
   * Cancels what runs (as {@link cancel}), waits for it to end, stops following, closes.
   * @returns how the prompt, compaction or shell command that was running ended, in the abort
   * line's words (`cancelled by SIGTERM`, `cancelled`); undefined when nothing ran.
   */
  async close(by?: string): Promise<string | undefined> {
    const busy = this.busy;
    this.cancel(by);
    await this.work;
    this.unsubscribe();
    await this.host.close(this.session);
    return busy ? abortNote(cancelReason(by)?.message ?? USER_CANCEL_REASON) : undefined;
  }

  private async dispatch(input: string): Promise<void> {
    if (input.startsWith("!")) {
      return this.runShell(input.slice(1).trim());
    }
    const command = parseCommandLine(input);
    if (command !== undefined) {
      this.typedCommand = input;
      if (command.definition === undefined) {
        this.commandNote(unknownCommandText(command.name), "error");
        return;
      }
      const outcome = await command.definition.run({
        host: this.host,
        session: this.session,
        model: this.model,
        mode: this.mode,
        argument: command.argument,
      });
      return this.apply(outcome);
    }
    return this.prompt(input);
  }

  private ending: string | undefined;
  /** The slash command being run, as typed, until its heading is drawn ({@link commandNote}). */
  private typedCommand: string | undefined;

  /**
   * A line of the running slash command's output: the first is preceded by the command as typed
   * (dim, after a blank row), and each is drawn two columns in (command-output.ts), so that it
   * never reads as the model's answer.
   */
  private commandNote(text: string | undefined, style: "plain" | "error" = "plain"): void {
    if (this.typedCommand !== undefined) {
      this.view?.note(`\n${this.typedCommand}`, "dim");
      this.typedCommand = undefined;
    }
    if (text !== undefined) {
      this.view?.note(commandBody(text), style);
    }
  }

  /** How the prompt that just ended stopped (`stopped: max_turn_requests`, event-notes.ts), once. */
  takeEnding(): string | undefined {
    const ending = this.ending;
    this.ending = undefined;
    return ending;
  }

  private async prompt(text: string): Promise<void> {
    // The files attached are named under the prompt, from its event (transcript.ts).
    const { content, problems } = await promptInput.attachFiles(text, this.session.cwd);
    for (const problem of problems) {
      this.view?.note(problem, "error");
    }
    const settings = this.agentSettings();
    if (settings === undefined) {
      return; // Not sent or stored; the box stays free for `/model`, ↑ brings the message back.
    }
    this.ending = undefined;
    // Waiting before the busy line is drawn: its keys are the question's (Esc no).
    const started = this.servers.wait();
    this.setBusy(Date.now());
    try {
      if (!(await started)) {
        // Cancelled before it began: nothing was stored or sent (the input history keeps it).
        this.view?.note(open.WAITING_CANCELLED, "error");
        return;
      }
      const context = this.context.splice(0);
      const full = [...context, content].join("\n\n");
      this.view?.statusChanged();
      const outcome = await this.session.prompt(settings, full);
      this.ending =
        outcomeNote(outcome, settings.maxTurns, INTERACTIVE_GO_ON) ??
        failedPromptEnding(this.view, outcome);
      if ("error" in outcome && outcome.promptTooLarge !== undefined) {
        // Nothing was sent or stored: back in the box as typed; `!command` output waits again.
        this.context.unshift(...context);
        this.view?.restoreInput?.(text);
      }
    } finally {
      this.setBusy(undefined);
    }
  }

  /**
   * `/compact [instructions]`: a turn of its own with the prompt's agent settings, cancelled as
   * a prompt is. The session's `session.compaction_complete` event draws the result; one refused
   * as it would remove nothing writes no event, and its reason is the note.
   */
  private async compact(instructions: string): Promise<void> {
    this.commandNote(undefined);
    const settings = this.agentSettings();
    if (settings === undefined) {
      return;
    }
    this.setBusy(Date.now());
    try {
      const result = await this.session.compact(settings, instructions);
      if (!result.ok && isNothingToCompact(result.message)) {
        this.commandNote(result.message);
      }
    } finally {
      this.setBusy(undefined);
    }
  }

  /** The sandbox policy confining the session's commands in its mode, when one does (README, "Sandbox"). */
  get sandbox(): SandboxPolicy | undefined {
    const config = this.host.configOf(this.session);
    const policy = this.host.sandboxOf(this.session).policyFor(permissionModeOf(this.mode, config));
    return policy === "danger-full-access" ? undefined : policy;
  }

  /** The next turn's agent settings: model, mode, permission question; none while it cannot run. */
  private agentSettings(): SessionAgentSettings | undefined {
    if (open.saidUnrunnable(this.model, this.view)) {
      return undefined;
    }
    const ask = this.view?.ask;
    return this.host.agentSettings(this.session, this.model, {
      autopilot: this.mode === "autopilot",
      permissionMode: () => permissionModeOf(this.mode, this.host.configOf(this.session)),
      settingNames: promptInput.INTERACTIVE_SETTINGS,
      ...(ask === undefined ? {} : { ask }),
    });
  }

  private async runShell(command: string): Promise<void> {
    if (command === "") {
      this.view?.note("type a command after !, e.g. !git status", "error");
      return;
    }
    const controller = new AbortController();
    this.shell = controller;
    this.setBusy(Date.now());
    try {
      // The user's own command, through the host's runner in the host's command environment.
      const place = promptInput.shellPlaceOf(this.host, this.session);
      this.context.push(
        await promptInput.runTypedCommand(command, place, controller.signal, this.view),
      );
    } finally {
      this.shell = undefined;
      this.setBusy(undefined);
    }
  }

  private async apply(outcome: CommandOutcome): Promise<void> {
    const view = this.view;
    switch (outcome.kind) {
      case "text":
        this.commandNote(outcome.text, outcome.error ? "error" : "plain");
        return;
      case "model":
        this.host.recordModelChange(this.session, this.model.id, outcome.model.id);
        this.model = outcome.model;
        this.commandNote(outcome.text);
        view?.statusChanged();
        return;
      case "mode":
        this.mode = outcome.mode;
        this.commandNote(outcome.text);
        view?.statusChanged();
        return;
      case "open":
        await this.switchTo(outcome.session, outcome.text);
        return;
      case "choose-session": {
        const chosen = await view?.pickSession(outcome.sessions, "Resume a session");
        if (chosen !== undefined) {
          const resume = COMMANDS.find((command) => command.name === "resume");
          const next = await resume?.run({
            host: this.host,
            session: this.session,
            model: this.model,
            mode: this.mode,
            argument: chosen,
          });
          if (next !== undefined) {
            await this.apply(next);
          }
        }
        return;
      }
      case "compact":
        return this.compact(outcome.instructions);
      case "exit":
        this.onExit();
        return;
      default: {
        const unhandled: never = outcome;
        return unhandled;
      }
    }
  }

  /** Opens `session` on a cleared screen; `said` (the command's answer) follows its history. */
  private async switchTo(session: Session, said: string | undefined): Promise<void> {
    const previous = this.session;
    this.unsubscribe();
    await this.host.close(previous);
    this.session = session;
    this.context = [];
    if (session.start.sessionId !== previous.start.sessionId) {
      this.model = open.faceModelOf(this.host, session);
    }
    this.view?.clear();
    await this.follow(session, said);
  }

  private async follow(session: Session, said?: string): Promise<void> {
    const view = this.view;
    this.usage = new UsageTotals();
    // What comes before the history is drawn (a server that fails at once, a command not found,
    // or a warning about the project's servers) waits for it: the screen was just cleared, and
    // an event unheard before the subscription was lost (a trial's /resume lost 8 of 9).
    let drawn: Set<string> | undefined;
    const waiting: Array<() => void> = [];
    const whenDrawn = (show: () => void): void => {
      if (drawn === undefined) {
        waiting.push(show);
      } else {
        show();
      }
    };
    this.unsubscribe = session.subscribe((event) => {
      // An event also in the log read below is drawn with the history.
      whenDrawn(() => drawn?.has(event.id) === true || this.showLive(event));
    });
    // MCP servers start with the session in the background; an untrusted project's are asked
    // about first, as `-p` does; a server's status is shown once, by the transcript's event note.
    this.servers.starting = this.host
      .startMcpServers(
        session,
        {},
        (line, about) => about ?? whenDrawn(() => view?.note(line)),
        view === undefined ? undefined : open.screenTrustQuestion(view),
      )
      .catch((error: unknown) =>
        whenDrawn(() => view?.note(`MCP: ${errorMessage(error)}`, "error")),
      );
    const { events } = await this.host.readEvents(session.id);
    for (const event of events) {
      this.usage.apply(event);
    }
    const unavailable = (previous: string) => this.host.modelForSession(previous).unavailable;
    view?.note(open.openingBanner(session, this.model, events, unavailable), "dim");
    view?.history(events);
    open.saidUnrunnable(this.model, view);
    if (said !== undefined) {
      this.commandNote(said);
    }
    drawn = new Set(events.map((event) => event.id));
    for (const show of waiting.splice(0)) {
      show();
    }
    view?.statusChanged();
  }

  /** A live event of the open session: counted, drawn, and the status line told of usage. */
  private showLive(event: SessionEvent): void {
    this.usage.apply(event);
    this.view?.show(event);
    if (event.type === "assistant.usage") {
      this.view?.statusChanged();
    }
  }

  private setBusy(since: number | undefined): void {
    this.busySince = since;
    this.view?.statusChanged();
  }
}
