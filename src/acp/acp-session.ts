import * as acp from "@agentclientprotocol/sdk";
import { taskCompleteTool } from "../agent/autopilot.js";
import { isNothingToCompact } from "../agent/compaction.js";
import type { PromptOutcome } from "../agent/loop.js";
import { retryNote } from "../events/errors.js";
import type { SessionEvent } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { ModelConfiguration } from "../llm/models.js";
import { parseCommandLine } from "../session/commands.js";
import {
  PromptInProgressError,
  type Session,
  type SessionAgentSettings,
} from "../session/session.js";
import type { AnyTool } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import { modelUnavailable } from "./authentication.js";
import { clientAgentSettings } from "./client-agent-settings.js";
import { type CommandTarget, commandModel, runSlashCommand } from "./commands.js";
import { invalidParams, invalidRequest, promptFailure } from "./errors.js";
import { configOptions, type ModeId, modeState } from "./modes.js";
import { offersNotices, SandboxNotice } from "./notices.js";
import { mcpFailureUpdates, openingUpdates } from "./opening-updates.js";
import { type PromptContent, promptContent } from "./prompt-content.js";
import { replayWith } from "./replay.js";
import type { AcpSessionContext } from "./session-context.js";
import { type AcpSessionModel, type AcpSessionStart, autopilotMeta } from "./session-setup.js";
import { UpdateOutbox } from "./update-outbox.js";
import { UpdateMapper } from "./updates.js";

/** One running prompt. `cancelled` is set by `session/cancel` and decides the answer. */
interface Turn {
  controller: AbortController;
  cancelled: boolean;
  finished: Promise<void>;
  finish: () => void;
}

/**
 * One turnloop session served over ACP: forwards its events as `session/update`s during a prompt
 * turn, asks permissions, runs tools through the client's fs and terminals, holds the mode and
 * model the client chose. A second `session/prompt` while one runs (not one read after a cancel:
 * session-requests.ts) is rejected at once with `-32600` ("already running a prompt"), nothing of it
 * logged (case 26): ACP clients serialise prompts; a reject never interleaves two turns.
 */
export class AcpSession {
  readonly session: Session;
  private mode: ModeId;
  private model: AcpSessionModel;
  /** The session's own sandbox policy (`sandbox` config option); absent: the run config's. */
  private sandbox: SandboxPolicy | undefined;
  private readonly context: AcpSessionContext;
  private readonly folders: readonly string[];
  private readonly mapper: UpdateMapper;
  private readonly unsubscribe: () => void;
  private turn: Turn | undefined;
  private announced = false;
  /**
   * Set by {@link close}: an announcement scheduled before it (`announceAfterAnswer`) would record
   * warnings in a closed log, so nothing is announced after it.
   */
  private closed = false;
  private readonly outbox: UpdateOutbox;
  private readonly sandboxNotice: SandboxNotice;

  constructor(context: AcpSessionContext, start: AcpSessionStart) {
    const sandbox = () => context.host.sandboxOf(start.session);
    this.sandboxNotice = new SandboxNotice(sandbox, context.offered, (update) => this.send(update));
    this.context = context;
    this.session = start.session;
    this.model = start.model;
    this.mode = start.mode;
    this.folders = start.folders;
    this.mapper = new UpdateMapper({
      mode: "live",
      cwd: this.session.cwd,
      toolNamed: (name) => this.toolNamed(name),
      contextWindow: (modelId) => context.host.contextWindowOf(modelId),
      titled: start.titled,
      notices: offersNotices(context.offered),
    });
    this.outbox = new UpdateOutbox((update) =>
      context.client.notify(acp.methods.client.session.update, { sessionId: this.id, update }),
    );
    this.unsubscribe = this.session.subscribe((event) => this.forward(event));
  }

  get id(): string {
    return this.session.id;
  }

  /** Whether a prompt runs (or the session is busy with one: a compaction, another face's). */
  get running(): boolean {
    return this.turn !== undefined || this.session.busy;
  }

  /** The running prompt's end, and whether {@link cancel} reached it; undefined when none runs. */
  get turnEnd(): Pick<Turn, "finished" | "cancelled"> | undefined {
    return this.turn;
  }

  /** The `modes` of a `session/new` / `load` / `resume` answer. */
  modes(): acp.SessionModeState {
    return modeState(this.mode, this.sandboxView().auto);
  }

  private sandboxView(mode = this.mode) {
    return this.sandboxNotice.view(this.context.host, this.session, mode, this.sandbox);
  }

  /** Probes bubblewrap when `mode`'s commands are to be confined, so the options tell the truth. */
  probeSandbox(mode: ModeId = this.mode): Promise<void> {
    return this.sandboxNotice.probe(this.sandboxView(mode).policy);
  }

  /** Says once that no sandbox can run, when the session's commands were to be confined. */
  warnSandboxOnce(): void {
    this.sandboxNotice.warnOnce(this.sandboxView().policy);
  }

  /** The full config options (mode, model, sandbox). */
  configOptions(): acp.SessionConfigOption[] {
    const { policy, auto, unavailable } = this.sandboxView();
    const choices = this.context.host.modelChoices(this.model.id, this.session.start.model);
    return configOptions(this.mode, this.model.id, choices, policy, auto, unavailable);
  }

  /** Chooses the sandbox policy of the next prompts' commands (the `sandbox` config option). */
  setSandbox(policy: SandboxPolicy): void {
    this.sandbox = policy;
  }

  /**
   * ACP v1 slash-commands: `available_commands_update`, once, after the `session/new` / `load` /
   * `resume` answer (scheduled by the agent), or at the first prompt's start if that is sooner.
   */
  announceCommands(): void {
    if (this.announced || this.closed) {
      return;
    }
    this.announced = true;
    for (const update of openingUpdates(this.session, this.context)) {
      this.send(update);
    }
    this.warnSandboxOnce();
  }

  /**
   * ACP v1 `session/load`: replays the persisted events, which the live updates then build on
   * (the session's cost so far); await {@link flush} before answering.
   */
  replay(events: readonly SessionEvent[]): void {
    const updates = replayWith(this.mapper.replaying(), events);
    for (const update of updates) {
      this.send(update);
    }
    this.learn(events);
  }

  /**
   * Folds the session's stored `events` without sending an update, so the live updates build on
   * them (`usage_update.cost` is the session's cost so far): `session/load` after its replay,
   * `session/resume`, which replays nothing, at once.
   */
  learn(events: readonly SessionEvent[]): void {
    this.mapper.learn(events);
  }

  /** Resolves once every update sent so far is written. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /**
   * Changes the mode (ACP v1 session-modes). `announce.mode` sends `current_mode_update`,
   * `announce.config` sends `config_option_update`: the client hears of the change through the
   * API it did not use itself, so both views stay in step.
   */
  setMode(mode: ModeId, announce: { mode: boolean; config: boolean }): void {
    this.mode = mode;
    if (announce.mode) {
      this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    }
    if (announce.config) {
      this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    }
  }

  /**
   * The model of the next prompts (ACP v1 config option `model`, `session/set_model`, `/model`),
   * recorded as `session.model_change`; `-32602` when it does not resolve.
   */
  setModel(modelId: string, announce: boolean): void {
    const resolved = this.context.host.resolveModel(modelId, this.model.id);
    if (!resolved.ok) {
      // session/set_model (announce) names the field modelId; session/set_config_option, value.
      const field = announce ? "modelId" : "value";
      throw invalidParams([field], resolved.message.replace(/^turnloop: /, ""), { value: modelId });
    }
    this.context.host.recordModelChange(this.session, this.model.id, resolved.configuration.id);
    this.model = { id: resolved.configuration.id, configuration: resolved.configuration };
    if (announce) {
      this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    }
  }

  /**
   * ACP v1 prompt-turn: runs one prompt; every update of the turn is written before the answer,
   * and nothing of it after. Answers `cancelled` once `session/cancel` (or `$/cancel_request` for
   * this request, or `session/close`) arrived, whatever the loop returned; a provider failure is a
   * JSON-RPC error (case 17).
   * @throws `-32600` when a prompt is already running (case 26).
   */
  async prompt(
    blocks: readonly acp.ContentBlock[],
    requestSignal: AbortSignal,
  ): Promise<acp.PromptResponse> {
    if (this.running) {
      throw invalidRequest(
        `Session ${this.id} is already running a prompt; wait for its answer or send session/cancel first.`,
      );
    }
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const turn: Turn = { controller: new AbortController(), cancelled: false, finished, finish };
    this.turn = turn;
    this.announceCommands();
    await this.probeSandbox();
    this.warnSandboxOnce();
    const onRequestCancelled = () => this.cancel();
    requestSignal.addEventListener("abort", onRequestCancelled, { once: true });
    if (requestSignal.aborted) {
      this.cancel();
    }
    try {
      const outcome = await this.run(promptContent(blocks), turn);
      await this.flush();
      if (turn.cancelled) {
        return { stopReason: "cancelled" };
      }
      if ("error" in outcome) {
        throw promptFailure(outcome.error, outcome.promptTooLarge);
      }
      return { stopReason: outcome.stopReason, ...autopilotMeta(outcome) };
    } catch (error) {
      // The session started another prompt or a compaction meanwhile (one at a time, case 26).
      throw error instanceof PromptInProgressError ? invalidRequest(error.message) : error;
    } finally {
      requestSignal.removeEventListener("abort", onRequestCancelled);
      this.turn = undefined;
      turn.finish();
    }
  }

  /** ACP v1 prompt-turn: cancelled. Stops the running prompt; an idle cancel does nothing. */
  cancel(): void {
    const turn = this.turn;
    if (turn === undefined) {
      return;
    }
    turn.cancelled = true;
    turn.controller.abort();
  }

  /** ACP v1 `session/close`: cancels as `session/cancel` would, waits for the answer, frees the log. */
  async close(): Promise<void> {
    this.closed = true;
    const turn = this.turn;
    this.cancel();
    await turn?.finished;
    this.unsubscribe();
    await this.context.host.close(this.session);
  }

  private async run({ text, ...given }: PromptContent, turn: Turn): Promise<PromptOutcome> {
    // `/compact` is a turn of its own (a model call), so it runs here rather than as a reply.
    const command = parseCommandLine(text);
    if (command?.definition?.name === "compact") {
      return this.compact(command.argument, turn);
    }
    if (await runSlashCommand(text, this.commandTarget())) {
      return { stopReason: "end_turn" };
    }
    return this.session.prompt(this.agentSettings(), text, {
      signal: turn.controller.signal,
      // Recorded on its `user.message`, as an SDK app's autopilot prompt is: `session.idle`'s
      // `mode` for the apps following the session (server/client-link.ts).
      ...(this.mode === "autopilot" ? { agentMode: "autopilot" } : {}),
      ...given,
    });
  }

  /** What the shared slash commands (`session/commands.ts`) read and change here. */
  private commandTarget(): CommandTarget {
    return {
      context: {
        host: this.context.host,
        session: this.session,
        model: commandModel(this.model.id, this.model.configuration),
        mode: this.mode,
      },
      say: (text) => this.say(text),
      setMode: (mode) => this.setMode(mode, { mode: true, config: true }),
      // The one path of every switch (the config option, session/set_model): recorded.
      useModel: (configuration) => this.setModel(configuration.id, true),
    };
  }

  /**
   * `/compact [instructions]`: compacts the history now (a `think` tool call); a compaction that
   * fails or finds nothing to compact is said, and the turn ends `end_turn`: nothing was lost.
   */
  private async compact(instructions: string, turn: Turn): Promise<PromptOutcome> {
    const result = await this.session.compact(this.agentSettings(), instructions, {
      signal: turn.controller.signal,
    });
    if (!result.ok && !result.cancelled) {
      const said = isNothingToCompact(result.message) ? "" : "Nothing was compacted: ";
      this.say(`${said}${result.message}`.replace(/^n/, "N"));
    }
    return { stopReason: result.ok || !result.cancelled ? "end_turn" : "cancelled" };
  }

  /** A reply of the agent itself (slash commands), not of the model. */
  private say(text: string): void {
    this.send({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
      messageId: randomUUID(),
    });
  }

  /**
   * How to reach the model, resolved again when its key was missing (it may be set by now) or the
   * session was loaded without one that runs here (session-setup.ts `sessionModel`).
   * @throws auth-required `-32000` when the key is still missing; else `-32603` with the problem
   *   (a removed profile's in its words: host-models.ts `removedProfileProblem`).
   */
  private configuration(): ModelConfiguration {
    if (this.model.configuration !== undefined) {
      return this.model.configuration;
    }
    const resolved = this.context.host.resolveModel(this.model.id);
    if (!resolved.ok) {
      throw modelUnavailable(this.context.host.removedProfileProblem(this.model.id) ?? resolved);
    }
    this.model = { id: this.model.id, configuration: resolved.configuration };
    return resolved.configuration;
  }

  /** The next turn's agent settings: the model, the mode, and how the client is asked and used. */
  private agentSettings(): SessionAgentSettings {
    return clientAgentSettings(this.context, {
      session: this.session,
      configuration: this.configuration(),
      mode: () => this.mode,
      sandbox: this.sandbox,
      folders: this.folders,
      mapper: this.mapper,
      send: (update) => this.send(update),
      cancelPrompt: () => this.cancel(),
    });
  }

  private toolNamed(name: string): AnyTool | undefined {
    const tools = [...builtinTools(), ...this.context.extraTools, taskCompleteTool];
    return tools.find((tool) => tool.name === name) ?? this.session.mcp?.toolNamed(name);
  }

  /**
   * Sends an event's updates while a prompt turn runs; a whole reply's last chunk goes at once.
   * An MCP server that fails once the session is announced is told at once, turn or not.
   */
  private forward(event: SessionEvent): void {
    for (const update of this.announced ? mcpFailureUpdates(event, this.context.offered) : []) {
      this.send(update);
    }
    if (this.turn === undefined) {
      return;
    }
    if (event.type === "assistant.retry") {
      this.context.log(`turnloop: session ${this.session.id}: ${retryNote(event.data)}`);
    } else if (event.type === "assistant.message") {
      this.outbox.sendWaiting();
    }
    for (const update of this.mapper.map(event)) {
      this.send(update);
    }
  }

  private send(update: acp.SessionUpdate): void {
    if (update.sessionUpdate !== "usage_update" || this.context.sendsUsage()) {
      this.outbox.send(update);
    }
  }
}
