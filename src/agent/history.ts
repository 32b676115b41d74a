import { USER_CANCEL_REASON } from "../events/errors.js";
import type { SessionEvent, SessionEventData, ToolRequest } from "../events/events.js";
import { imageDataProblem } from "../llm/image-data.js";
import type { HistoryMessage } from "../llm/provider.js";
import { KnownFiles } from "../tools/tool-support.js";
import { interruptionNote, LOST_PROMPT_TEXT, NO_REPLY_NOTE } from "./history-notes.js";
import { ContextMeter } from "./token-estimate.js";

/**
 * How the model sees a compaction's summary: a user-side message, since every wire accepts one
 * anywhere a user turn may stand.
 */
export function summaryMessageText(summary: string): string {
  return `The earlier part of this conversation was compacted to fit the context window. This summary of it was written by you; the messages after it are verbatim.\n\n<summary>\n${summary.trim()}\n</summary>`;
}

/** The `session.warning` type that tells the user of {@link History.undecodableImages}. */
export const UNDECODABLE_IMAGES_WARNING = "image_data";

/**
 * The conversation as the model sees it, folded from session events one at a time.
 *
 * Results of parallel tool calls complete in any order but are kept in call order right after
 * their assistant message (case 11), so every request pairs each call with its result.
 *
 * A successful `session.compaction_complete` replaces the start of the view with its summary
 * (see the event's docs); the events themselves stay in the log, so folding the log again gives
 * the same compacted view.
 */
export class History {
  /** The model's view; changed in place, so a reference to it stays current. */
  readonly messages: HistoryMessage[] = [];
  /** Tokens of the view: reported usage plus estimates (src/agent/token-estimate.ts). */
  readonly meter = new ContextMeter();
  /** The model of the last conversation request that reported usage. */
  lastModel: string | undefined;
  /** The files the model viewed, edited or created, and their text as it knows them. */
  readonly knownFiles = new KnownFiles();
  /**
   * The models ({@link lastModel} when it was said) the session was warned about that cut the
   * prompt (`session.warning` `prompt_truncated`): the warning is said once per session and model.
   */
  readonly truncationWarned = new Set<string>();
  /**
   * Images of prompts in the view whose data does not decode (a log an earlier version wrote,
   * which took them unchecked: llm/image-data.ts), each replaced by a note for the model; and
   * whether the user was told (`session.warning` `image_data`, folded from the log: once).
   */
  readonly undecodableImages = { count: 0, warned: false };
  /** Summary messages of compactions (user-side, not the user's words). */
  private readonly summaries = new WeakSet<HistoryMessage>();
  /** Turns that were compaction requests: their usage is not the view's. */
  private readonly compactionTurns = new Set<string>();
  /**
   * Calls still waiting for a result, in call order: the latest assistant message's, after any
   * an earlier reply left without one (a damaged or imported log).
   */
  private openCalls: OpenCall[] = [];
  /** Ids the model has been sent, so that none is sent for two calls. */
  private readonly idsSent = new Set<string>();
  /** Index in `messages` of the latest assistant message. */
  private assistantIndex = -1;
  /** See {@link latestUserMessage}. */
  private latestUser: HistoryMessage | undefined;
  /** What the next user message is prefixed with: the latest reply was cut off (see {@link interruptionNote}). */
  private interruption: string | undefined;
  /** The latest reply when a failure broke it off: a retry takes it out of the view. */
  private brokenReply: HistoryMessage | undefined;
  /**
   * Whether no prompt is being answered: none yet, or the latest one's stop was logged (a turn
   * end's `stopReason`, an `abort`, a `session.error`). See {@link LOST_PROMPT_TEXT}.
   */
  private betweenPrompts = true;

  /** Folds one event. Events that do not change the conversation are ignored. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case "user.message":
        this.betweenPrompts = false;
        this.addUserMessage(event.data);
        return;
      case "assistant.message":
        this.addAssistantMessage(event.data);
        return;
      case "tool.execution_complete":
        this.addResult(event.data);
        this.knownFiles.apply(event);
        return;
      case "session.error":
        this.betweenPrompts = true;
        return;
      case "abort":
        this.aborted(event.data.reason);
        return;
      case "assistant.retry":
        this.dropBrokenReply();
        return;
      case "assistant.turn_start":
        this.turnStarted(event.data);
        return;
      case "assistant.turn_end":
        this.turnEnded(event.data);
        return;
      case "assistant.usage":
        if (!this.compactionTurns.has(event.data.turnId)) {
          this.meter.report(event.data.inputTokens, event.data.outputTokens);
          this.lastModel = event.data.model;
        }
        return;
      case "session.compaction_complete":
        this.applyCompaction(event.data);
        return;
      case "session.warning":
        if (event.data.warningType === "prompt_truncated") {
          this.truncationWarned.add(this.lastModel ?? "");
        }
        if (event.data.warningType === UNDECODABLE_IMAGES_WARNING) {
          this.undecodableImages.warned = true;
        }
        return;
      default:
        return;
    }
  }

  private aborted(reason: string): void {
    this.betweenPrompts = true;
    // A cut reply's cancel came from elsewhere (a signal, the app leaving): say so.
    if (this.interruption !== undefined && reason !== USER_CANCEL_REASON) {
      this.interruption = `[Your previous reply was interrupted before it finished: ${reason}.]`;
    }
  }

  private turnStarted({ purpose, turnId }: SessionEventData["assistant.turn_start"]): void {
    if (purpose === "compaction") {
      this.compactionTurns.add(turnId);
    } else if (purpose === undefined && this.betweenPrompts) {
      // The prompt this turn answers was on a damaged line of the log: its place is kept.
      this.betweenPrompts = false;
      this.addUserMessage({ content: LOST_PROMPT_TEXT, source: "user" });
    }
  }

  private turnEnded({ status, turnId, stopReason }: SessionEventData["assistant.turn_end"]): void {
    const conversation = !this.compactionTurns.has(turnId);
    if (stopReason !== undefined || (status === "interrupted" && conversation)) {
      this.betweenPrompts = true;
    }
    // A turn whose process ended before any reply was logged (closed at resume,
    // src/session/open-work.ts): the prompt before it got no answer; say so.
    if (status === "interrupted" && conversation && this.messages.at(-1)?.role === "user") {
      this.interruption ??= NO_REPLY_NOTE;
    }
  }

  /**
   * Empties the view, as a new History has it, so that a rewound conversation is folded again
   * (src/session/rewind.ts); references to {@link messages} stay current.
   */
  clear(): void {
    this.messages.length = 0;
    this.meter.reset([]);
    this.lastModel = undefined;
    this.compactionTurns.clear();
    this.openCalls = [];
    this.idsSent.clear();
    this.assistantIndex = -1;
    this.latestUser = undefined;
    this.interruption = undefined;
    this.brokenReply = undefined;
    this.betweenPrompts = true;
    this.knownFiles.clear();
    this.truncationWarned.clear();
    this.undecodableImages.count = 0;
    this.undecodableImages.warned = false;
  }

  /**
   * The latest message the user side wrote (a prompt or an autopilot nudge, not a compaction
   * summary) in the view, kept as messages are folded, so that the per-turn budget and the
   * compaction guard need not search the whole view for it each turn.
   */
  get latestUserMessage(): HistoryMessage | undefined {
    return this.latestUser;
  }

  /** The latest assistant message of the view (the one whose calls are running or ran last). */
  get latestAssistantMessage(): HistoryMessage | undefined {
    return this.messages[this.assistantIndex];
  }

  /** Whether `message` is a compaction summary rather than something the user wrote. */
  isSummary(message: HistoryMessage): boolean {
    return this.summaries.has(message);
  }

  /**
   * The view a compaction removing the first `removed` messages leaves: the summary, the latest
   * user message when none is kept, then the kept messages.
   */
  compactedView(removed: number, summary: string): HistoryMessage[] {
    const kept = this.messages.slice(removed);
    const keepsUserMessage = kept.some((message) => this.isUserMessage(message));
    const latestUser = keepsUserMessage
      ? undefined
      : this.messages.slice(0, removed).findLast((message) => this.isUserMessage(message));
    const summaryMessage: HistoryMessage = { role: "user", content: summaryMessageText(summary) };
    this.summaries.add(summaryMessage);
    return [summaryMessage, ...(latestUser === undefined ? [] : [latestUser]), ...kept];
  }

  private isUserMessage(message: HistoryMessage): boolean {
    return message.role === "user" && !this.summaries.has(message);
  }

  private applyCompaction(data: SessionEventData["session.compaction_complete"]): void {
    const removed = data.messagesRemoved ?? 0;
    if (!data.success || data.summaryContent === undefined || removed < 1) {
      return;
    }
    if (removed > this.messages.length) {
      // A log that does not match this fold (damage): keep the full view rather than guess.
      return;
    }
    const view = this.compactedView(removed, data.summaryContent);
    const latestAssistant = this.messages[this.assistantIndex];
    this.messages.splice(0, this.messages.length, ...view);
    this.assistantIndex = latestAssistant === undefined ? -1 : view.indexOf(latestAssistant);
    this.latestUser = view.findLast((message) => this.isUserMessage(message));
    this.meter.reset(view);
  }

  private addUserMessage(data: SessionEventData["user.message"]): void {
    const note = this.interruption;
    this.interruption = undefined;
    const images = data.images?.filter((image) => imageDataProblem(image.data) === undefined);
    const dropped = (data.images ?? []).filter((image) => !images?.includes(image));
    this.undecodableImages.count += dropped.length;
    const parts = [
      ...(note === undefined ? [] : [note]),
      data.content,
      ...dropped.map(
        (image) =>
          `[An image (${image.mimeType}) was attached, but its data is not valid base64, so it is not shown.]`,
      ),
    ];
    // The common case keeps the prompt's own string (a 50 MB prompt is not copied).
    const content =
      parts.length === 1 ? data.content : parts.filter((part) => part !== "").join("\n\n");
    this.push({ role: "user", content, ...(images === undefined ? {} : { images }) });
  }

  private addAssistantMessage(data: SessionEventData["assistant.message"]): void {
    const { content, reasoningParts, toolRequests, providerMetadata } = data;
    const calls = toolRequests.map((call, order) => ({
      call,
      order,
      modelId: this.uniqueId(call.toolCallId),
    }));
    const assistant: AssistantMessage = {
      role: "assistant",
      content,
      toolCalls: calls.map(({ call, modelId }) =>
        modelId === call.toolCallId ? call : { ...call, toolCallId: modelId },
      ),
      ...(reasoningParts === undefined ? {} : { reasoningParts }),
      ...(providerMetadata === undefined ? {} : { providerMetadata }),
    };
    // Calls of an earlier reply still open (a damaged or imported log) stay open.
    const earlier = this.openCalls;
    const opened = calls.map((call) => ({ ...call, assistant }));
    this.openCalls = earlier.length === 0 ? opened : [...earlier, ...opened];
    this.push(assistant);
    this.assistantIndex = this.messages.length - 1;
    this.interruption = interruptionNote(data);
    this.brokenReply =
      data.interrupted === true && data.error !== undefined ? assistant : undefined;
  }

  /**
   * A failed request is sent again (`assistant.retry`): the reply it broke off with (kept in the
   * log, interrupted, with its error) is no part of the request retried, so it leaves the view
   * with its note, live and when the log is folded again.
   */
  private dropBrokenReply(): void {
    const broken = this.brokenReply;
    this.brokenReply = undefined;
    if (broken === undefined || this.messages.at(-1) !== broken) {
      return;
    }
    this.messages.pop();
    this.assistantIndex = this.messages.findLastIndex((message) => message.role === "assistant");
    this.interruption = undefined;
    this.meter.reset(this.messages);
  }

  private push(message: HistoryMessage): void {
    if (message.role === "user") {
      this.latestUser = message;
    }
    this.messages.push(message);
    this.meter.add(message);
  }

  /**
   * Tool calls that have no result yet, as logged, in call order: those of earlier assistant
   * messages (a result line lost to damage, an imported log) first, then the latest's. Each gets
   * its interrupted result at resume (session.ts), placed after its own message.
   */
  get pendingToolCalls(): readonly ToolRequest[] {
    return this.openCalls.map((open) => open.call);
  }

  /**
   * The id the model is sent for a logged call id: the same unless it was empty or already sent
   * for another call. Logs written before ids were made unique (issue 11) can hold `call_0` on
   * every turn, which Anthropic rejects ("tool_use ids must be unique"); the replacement is
   * derived from the position, so every request of the session replays the same ids.
   */
  private uniqueId(loggedId: string): string {
    let id = loggedId;
    for (let suffix = 2; id.trim() === "" || this.idsSent.has(id); suffix++) {
      id = `${loggedId.trim() === "" ? "call" : loggedId}_${suffix}`;
    }
    this.idsSent.add(id);
    return id;
  }

  private addResult(data: Extract<SessionEvent, { type: "tool.execution_complete" }>["data"]) {
    // The first open call with the logged id: a reply may have repeated an id in old logs.
    const open = this.openCalls.find((entry) => entry.call.toolCallId === data.toolCallId);
    if (open === undefined) {
      // A result for no open call (duplicate, or damage in the log) would make the request invalid.
      return;
    }
    this.openCalls = this.openCalls.filter((entry) => entry !== open);
    const latest = this.messages[this.assistantIndex];
    const assistantIndex =
      open.assistant === latest ? this.assistantIndex : this.messages.lastIndexOf(open.assistant);
    if (assistantIndex < 0) {
      // Its message was compacted away: the summary stands for both.
      return;
    }
    const message: HistoryMessage = {
      role: "tool",
      toolCallId: open.modelId,
      toolName: data.toolName,
      content: data.result.content,
      isError: !data.success,
      ...(data.error === undefined ? {} : { errorCode: data.error.code }),
      ...(data.result.images === undefined ? {} : { images: data.result.images }),
    };
    const orderOf = new Map(
      open.assistant.toolCalls.map((call, order) => [call.toolCallId, order]),
    );
    let position = assistantIndex + 1;
    while (position < this.messages.length) {
      const existing = this.messages[position];
      if (existing?.role !== "tool" || (orderOf.get(existing.toolCallId) ?? 0) > open.order) {
        break;
      }
      position++;
    }
    this.messages.splice(position, 0, message);
    this.meter.add(message);
  }
}

type AssistantMessage = Extract<HistoryMessage, { role: "assistant" }>;

interface OpenCall {
  /** The call as logged. */
  call: ToolRequest;
  /** Its position in the assistant message. */
  order: number;
  /** The id the model is sent for it. */
  modelId: string;
  /** The assistant message it belongs to. */
  assistant: AssistantMessage;
}
