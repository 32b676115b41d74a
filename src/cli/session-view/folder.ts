/** The state of the session view's fold between two events (fold.ts drives it). */

import type { RepairNote, SessionEvent } from "../../events/events.js";
import {
  type Prompt,
  SessionFold,
  type ToolCallStatus,
} from "../../session/session-model/session-model.js";
import { stateWords } from "../../session/session-model/tool-call.js";
import { LOST_PROMPT_WORDS } from "../../session/session-store.js";
import { assignDefined, count, type Fields, text } from "./fields.js";
import { promptSent, promptShown } from "./prompt-text.js";
import { stopReasonOf } from "./stop-reason.js";
import { readToolChange } from "./tool-change.js";
import type { ViewCompaction, ViewMark, ViewPrompt, ViewTool, ViewTurn } from "./view-model.js";

/** The state of the fold between two events. */
export class Folder {
  /**
   * @param idleReopens the `session.resume` events of reopens that did not go on (idle-reopens.ts):
   * the view draws no "session resumed" for them.
   */
  constructor(readonly idleReopens: ReadonlySet<SessionEvent> = new Set()) {}

  /** The session model: a tool call's outcome and exit code are read from it, as on every face. */
  readonly model = new SessionFold();
  readonly prompts: ViewPrompt[] = [];
  readonly turns: ViewTurn[] = [];
  readonly compactions: ViewCompaction[] = [];
  readonly session: Fields = {};
  /** Damage that earlier opens recorded in `session.resume`. */
  readonly resumeRepairs: RepairNote[] = [];
  readonly turnsById = new Map<string, ViewTurn>();
  readonly toolsById = new Map<string, { tool: ViewTool; turn: ViewTurn }>();
  /** Marks waiting for the turn they belong to (a retry before its turn_start, in older logs). */
  readonly waitingMarks = new Map<string, ViewMark[]>();
  /** Marks of the moment between turns, given to the next turn of the prompt. */
  pendingMarks: ViewMark[] = [];
  /**
   * Marks from a drawn `session.resume` or a model switch on, until the next prompt or turn: they
   * belong to what they led to (the next prompt's header, as `sessions show` draws `— resumed`
   * and `model: a → b` before it).
   */
  reopenMarks: ViewMark[] | undefined;
  /** Turns whose `turn_end` came before their tools: the older order. */
  endedBeforeTools = new Set<ViewTurn>();
  /** Per turn, the time of the event before its `turn_start`. */
  readonly previousAt = new Map<ViewTurn, number>();
  /** The session model's prompt of each view prompt (not an implicit one): its stop is the view's. */
  readonly foldPrompts = new Map<ViewPrompt, Prompt>();
  /** Turns the session model has not (no `turn_start` in the log): later turns' numbers follow them. */
  implicitTurns = 0;
  /** Index in `turns` of the current prompt's first turn. */
  promptTurnStart = 0;
  origin = Number.NaN;
  lastAt = 0;
  previousEventAt = 0;

  time(event: SessionEvent): number {
    const parsed = Date.parse(event.timestamp);
    if (Number.isNaN(this.origin) && !Number.isNaN(parsed)) {
      this.origin = parsed;
    }
    // A timestamp that does not parse keeps the time of the event before it.
    return Number.isNaN(parsed) ? this.lastAt : parsed - this.origin;
  }

  get currentPrompt(): ViewPrompt {
    const prompt = this.prompts.at(-1);
    if (prompt !== undefined) {
      return prompt;
    }
    // Events before any prompt (a log cut at its head): an implicit prompt holds them.
    const implicit: ViewPrompt = {
      index: 1,
      at: this.lastAt,
      content: "",
      commands: [],
      attachments: [],
      source: "none",
      stopReason: "unfinished",
      marks: [],
      closingMarks: [],
    };
    this.prompts.push(implicit);
    return implicit;
  }

  /** The turn of the current prompt still open, else its latest one. */
  get currentTurn(): ViewTurn | undefined {
    const turn = this.turns.at(-1);
    const prompt = this.prompts.at(-1);
    return turn !== undefined && turn.prompt === prompt?.index ? turn : undefined;
  }

  /** {@link currentTurn} while it is open: no `turn_end` yet, or a tool of it not ended. */
  get openTurn(): ViewTurn | undefined {
    const turn = this.currentTurn;
    const closed =
      turn !== undefined &&
      turn.endAt !== undefined &&
      turn.tools.every((tool) => tool.end !== undefined);
    return closed ? undefined : turn;
  }

  /**
   * Files `mark` where it stands in the log: under the turn `turnId` names, else under the turn
   * still open (ended turns whose tools all ended are closed), else it waits for the next turn of
   * the prompt or, if none comes, follows the prompt's turns ({@link ViewPrompt.closingMarks}).
   */
  mark(mark: ViewMark, turnId?: string): void {
    const turn = turnId === undefined ? this.openTurn : this.turnsById.get(turnId);
    if (turn !== undefined) {
      turn.marks.push(mark);
    } else if (turnId !== undefined) {
      this.waitingMarks.set(turnId, [...(this.waitingMarks.get(turnId) ?? []), mark]);
    } else {
      (this.reopenMarks ?? this.pendingMarks).push(mark);
    }
  }

  /**
   * A drawn `session.resume` or a `session.model_change`: its mark and the marks after it, up to
   * the next prompt or turn, go to that prompt or turn (the prompt before keeps what came before).
   */
  markForNext(mark: ViewMark): void {
    this.reopenMarks = [...(this.reopenMarks ?? []), mark];
  }

  /** The marks held since a reopen, now given to what it led to. */
  private takeReopenMarks(): ViewMark[] {
    const marks = this.reopenMarks ?? [];
    this.reopenMarks = undefined;
    return marks;
  }

  /** `session.start`: the session's facts. */
  start(data: Fields, timestamp: string): void {
    assignDefined(this.session, {
      sessionId: text(data.sessionId),
      cwd: text(data.cwd),
      producerVersion: text(data.producerVersion),
      model: text(data.model),
      startTime: timestamp,
    });
  }

  /** A `user.message`: an autopilot nudge is a mark, anything else starts a prompt. */
  userMessage(at: number, data: Fields): void {
    if (data.source === "autopilot") {
      this.mark({ kind: "nudge", at, text: "autopilot nudge", detail: text(data.content) });
    } else {
      this.startPrompt(at, data);
    }
  }

  startPrompt(at: number, data: Fields): void {
    const reopened = this.takeReopenMarks();
    this.closePrompt(false);
    // Marks before the first prompt (damage after session.start, say) are the first prompt's.
    const marks = [...(this.prompts.length === 0 ? this.pendingMarks.splice(0) : []), ...reopened];
    const prompt: ViewPrompt = {
      index: this.prompts.length + 1,
      at,
      content: promptShown(data),
      ...promptSent(data),
      source: text(data.source) ?? "user",
      ...(data.lost === true ? { lost: true as const } : {}),
      stopReason: "unfinished",
      marks,
      closingMarks: [],
    };
    this.prompts.push(prompt);
    // The session model folded this `user.message` first (fold.ts): its prompt is the latest.
    const folded = this.model.answeredPrompt;
    if (folded !== undefined) {
      this.foldPrompts.set(prompt, folded);
    }
  }

  /** The session model's prompt of the turn starting now was lost (`Prompt.lost`): its view's. */
  private startLostPrompt(at: number): void {
    const folded = this.model.answeredPrompt;
    const current = this.prompts.at(-1);
    const drawn = current !== undefined && this.foldPrompts.get(current) === folded;
    if (folded?.lost === true && !drawn) {
      this.startPrompt(at, { content: `(${LOST_PROMPT_WORDS})`, source: "user", lost: true });
    }
  }

  closePrompt(isLast: boolean): void {
    // A reopen that led to no prompt or turn (a call's result given after it): its marks stay here.
    this.pendingMarks.push(...this.takeReopenMarks());
    const prompt = this.prompts.at(-1);
    if (prompt === undefined) {
      return;
    }
    const turns = this.turns.slice(this.promptTurnStart);
    this.promptTurnStart = this.turns.length;
    const olderOrder = this.endedBeforeTools.size > 0;
    const stop = this.foldPrompts.get(prompt)?.stop;
    prompt.stopReason = stopReasonOf(stop, turns, isLast, olderOrder);
    // Marks after the prompt's last turn, in log order after it (a prompt without turns: its marks).
    if (turns.length === 0) {
      prompt.marks.push(...this.pendingMarks);
    } else {
      prompt.closingMarks.push(...this.pendingMarks);
    }
    this.pendingMarks = [];
  }

  startTurn(at: number, data: Fields): void {
    this.startLostPrompt(at);
    const turnId = text(data.turnId) ?? `turn-${this.turns.length + 1}`;
    // The session model folded this `turn_start` first (fold.ts); an implicit turn it never saw.
    const folded = this.model.turnsById.get(turnId);
    if (folded === undefined) {
      this.implicitTurns += 1;
    }
    const turn: ViewTurn = {
      index: this.turns.length + 1,
      number: (folded?.number ?? this.model.model.usage.turns) + this.implicitTurns,
      attempt: folded?.attempt ?? 1,
      title: "",
      turnId,
      prompt: this.currentPrompt.index,
      requestAt: at,
      spanEnd: at,
      status: "open",
      tools: [],
      marks: [
        ...this.pendingMarks,
        ...this.takeReopenMarks(),
        ...(this.waitingMarks.get(turnId) ?? []),
      ],
    };
    assignDefined(turn, { purpose: text(data.purpose), betweenPrompts: folded?.betweenPrompts });
    // Where an older log wrote turn_start at the first token, the request left at the event before.
    this.previousAt.set(turn, this.previousEventAt);
    this.pendingMarks = [];
    this.waitingMarks.delete(turnId);
    this.turns.push(turn);
    this.turnsById.set(turnId, turn);
  }

  message(at: number, data: Fields): void {
    const turn = this.currentTurn ?? this.startImplicitTurn(at);
    turn.lastTokenAt = at;
    assignDefined(turn, {
      content: text(data.content),
      reasoning: text(data.reasoning),
      interrupted: data.interrupted === true ? true : undefined,
    });
    const requests = Array.isArray(data.toolRequests) ? data.toolRequests : [];
    for (const request of requests as Fields[]) {
      const toolCallId = text(request?.toolCallId);
      if (toolCallId === undefined) {
        continue;
      }
      const tool: ViewTool = {
        toolCallId,
        name: text(request.name) ?? "?",
        arguments: request.rawArguments ?? request.arguments ?? {},
        status: "running",
      };
      assignDefined(tool, { argumentsError: text(request.argumentsError) });
      turn.tools.push(tool);
      this.toolsById.set(toolCallId, { tool, turn });
    }
  }

  startImplicitTurn(at: number): ViewTurn {
    this.startTurn(at, { turnId: `implicit-${this.turns.length + 1}` });
    return this.turns.at(-1) as ViewTurn;
  }

  endTurn(at: number, data: Fields): void {
    const turn = this.turnsById.get(text(data.turnId) ?? "") ?? this.currentTurn;
    if (turn === undefined) {
      return;
    }
    turn.endAt = at;
    turn.status = text(data.status) ?? "completed";
    assignDefined(turn, {
      finishReason: text(data.finishReason),
      errorType: text(data.errorType),
    });
  }

  usage(data: Fields): void {
    const turn = this.turnsById.get(text(data.turnId) ?? "") ?? this.currentTurn;
    if (turn === undefined) {
      return;
    }
    turn.usage = {};
    assignDefined(turn.usage, {
      input: count(data.inputTokens),
      output: count(data.outputTokens),
      cacheRead: count(data.cacheReadTokens),
      cacheWrite: count(data.cacheWriteTokens),
      reasoning: count(data.reasoningTokens),
    });
    assignDefined(turn, { model: text(data.model), cost: count(data.cost) });
  }

  tool(toolCallId: string, at: number, name: unknown): ViewTool {
    const known = this.toolsById.get(toolCallId);
    if (known !== undefined) {
      if (known.turn.endAt !== undefined && known.tool.start === undefined) {
        this.endedBeforeTools.add(known.turn);
      }
      return known.tool;
    }
    // A tool without its request (a damaged line): it joins the current turn.
    const turn = this.currentTurn ?? this.startImplicitTurn(at);
    const tool: ViewTool = {
      toolCallId,
      name: text(name) ?? "?",
      arguments: {},
      status: "running",
    };
    turn.tools.push(tool);
    this.toolsById.set(toolCallId, { tool, turn });
    return tool;
  }

  toolStart(at: number, data: Fields): void {
    const tool = this.tool(text(data.toolCallId) ?? "", at, data.toolName);
    tool.start = at;
    if (data.arguments !== undefined && !(typeof tool.arguments === "string")) {
      tool.arguments = data.arguments;
    }
    readToolChange(tool, this.model.toolCall(tool.toolCallId));
  }

  toolComplete(at: number, data: Fields): void {
    const tool = this.tool(text(data.toolCallId) ?? "", at, data.toolName);
    tool.end = at;
    tool.start ??= at;
    const error = (data.error ?? {}) as Fields;
    const code = text(error.code);
    const toolCall = this.model.toolCall(tool.toolCallId);
    tool.status = viewStatus(toolCall?.status);
    const result = (data.result ?? {}) as Fields;
    const images = Array.isArray(result.images) ? result.images.length : 0;
    assignDefined(tool, {
      outcome:
        toolCall === undefined || toolCall.status === "completed"
          ? undefined
          : stateWords(toolCall),
      exitCode: toolCall?.exitCode,
      signal: toolCall?.signal,
      durationMs: toolCall?.durationMs,
      errorCode: code,
      errorMessage: text(error.message),
      // Without a command's `<exited …>` line, which README calls for the model only.
      result:
        text(result.content) === undefined ? undefined : (toolCall?.output ?? text(result.content)),
      imageCount: images > 0 ? images : undefined,
    });
    readToolChange(tool, toolCall);
  }

  permissionRequested(at: number, data: Fields): void {
    const tool = this.tool(text(data.toolCallId) ?? "", at, data.toolName);
    const title = text(data.title) ?? "";
    tool.permission = { requested: at, kind: text(data.kind) ?? "", title };
    this.mark({ kind: "permission", at, text: `permission asked: ${title}` });
  }

  permissionCompleted(at: number, data: Fields): void {
    const tool = this.tool(text(data.toolCallId) ?? "", at, undefined);
    const permission = tool.permission ?? { requested: at, kind: "", title: "" };
    tool.permission = permission;
    permission.completed = at;
    assignDefined(permission, {
      decision: text(data.decision),
      scope: text(data.scope),
      rule: text(data.rule),
      reason: text(data.reason),
    });
    this.mark({ kind: "permission", at, text: `permission ${permission.decision ?? "answered"}` });
  }
}

/** The view's name for a finished call's state (the session model's outcome). */
function viewStatus(status: ToolCallStatus | undefined): ViewTool["status"] {
  switch (status) {
    case "completed":
      return "success";
    case "denied":
      return "denied";
    case "interrupted":
      // The session model's word on every face (session-model/tool-call.ts stateWords), whatever the
      // result's error code (`cancelled` for a cancel).
      return "interrupted";
    default:
      return "failed";
  }
}
