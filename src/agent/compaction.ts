import { errorMessage } from "../events/errors.js";
import type { CompactionTrigger, EventInput } from "../events/events.js";
import { contextWindowOf } from "../llm/context-window.js";
import type { HistoryMessage, ModelRequest, Provider, ToolSpecification } from "../llm/provider.js";
import {
  buildTranscript,
  COMPACTION_SYSTEM_PROMPT,
  type TranscriptLimits,
} from "./compaction-transcript.js";
import type { History } from "./history.js";
import { requestTurn, type TurnResult } from "./model-turn.js";
import { estimateFixedTokens, estimateMessageTokens } from "./token-estimate.js";

/** Compaction settings of a session (part of the loop's settings). */
export interface CompactionOptions {
  /** The model's context window in tokens (`--context-window`); the known window when absent. */
  contextWindow?: number;
  /** Context windows (tokens) by model id (the config files' `contextWindows`). */
  contextWindows?: Readonly<Record<string, number>>;
  /** Share of the window (0–1) at which the loop compacts before the next request; default 0.8. */
  compactionThreshold?: number;
}

/** Default share of the window at which the loop compacts (Copilot's `backgroundCompactionThreshold`). */
export const DEFAULT_COMPACTION_THRESHOLD = 0.8;
/** Share of the window the most recent messages may keep verbatim. */
const KEPT_SHARE = 0.25;
/** Share of the window the summary may take (output tokens), at most {@link MAX_SUMMARY_TOKENS}. */
const SUMMARY_SHARE = 0.2;
const MAX_SUMMARY_TOKENS = 4_096;

/** What compaction needs of the loop's settings. */
export interface CompactionSettings extends CompactionOptions {
  provider: Provider;
  systemPrompt: string;
  maxOutputTokens?: number;
}

/** What compaction reads and writes: the folded history and the session's event sink. */
export interface CompactionConversation {
  history: History;
  emit(event: EventInput): void;
  /** As the loop's (loop-types.ts `Conversation.checkpoint`): awaited before the summary request. */
  checkpoint?(): Promise<void>;
}

/** How a compaction ended. */
export type CompactionResult =
  | {
      ok: true;
      messagesRemoved: number;
      preCompactionTokens: number;
      postCompactionTokens: number;
      summaryContent: string;
    }
  | { ok: false; cancelled: boolean; message: string };

/** Why a compaction that would remove nothing fails ({@link nothingToCompact}). */
export const NOTHING_TO_COMPACT =
  "nothing to compact: the conversation is only its most recent turn";

/** Why a compaction of a session with no conversation yet (no prompt) fails. */
export const NO_CONVERSATION_YET = "nothing to compact: there is no conversation yet";

/** Whether `message` is a compaction's "nothing to compact" (either of the two above). */
export function isNothingToCompact(message: string): boolean {
  return message === NOTHING_TO_COMPACT || message === NO_CONVERSATION_YET;
}

/**
 * Why a manual compaction of `history` under a context window of `window` tokens would remove
 * nothing, and so fail ({@link compactConversation}): {@link NO_CONVERSATION_YET} before any
 * message, else {@link NOTHING_TO_COMPACT}; undefined when it would remove something. Checked by
 * every face before the session is reopened or the compaction starts, so a refused one writes
 * nothing.
 */
export function nothingToCompact(history: History, window: number): string | undefined {
  return removedBy(history, window, "manual") === 0 ? nothingReason(history) : undefined;
}

/** The messages a compaction with `trigger` removes from the start of `history` (see below). */
function removedBy(history: History, window: number, trigger: CompactionTrigger): number {
  // A manual compaction keeps only the latest turn: the user asked for the room.
  return splitPoint(history, window * KEPT_SHARE, trigger === "manual" ? 1 : Infinity);
}

function nothingReason(history: History): string {
  return history.messages.length === 0 ? NO_CONVERSATION_YET : NOTHING_TO_COMPACT;
}

/** The context window that applies to `settings` (tokens). */
export function windowOf(settings: CompactionSettings): number {
  const { id, typeId } = settings.provider;
  return contextWindowOf(id, settings, {}, typeId);
}

/**
 * Compacts the model's view: one summary request (a turn with `purpose: "compaction"`), then
 * `session.compaction_complete`, whose fold replaces the summarised messages (src/agent/history.ts).
 * The part kept verbatim is the most recent whole turns within a quarter of the window — a tool
 * call is never separated from its result, and the latest turn's results, which the model has
 * not seen yet, are kept whatever their size — and the latest user message. The summary request
 * carries the rest as a bounded transcript; if it still fails, a second attempt carries half as
 * much; then the compaction fails. A compaction that would remove nothing fails too, and so does one
 * whose summary and kept messages are not smaller than what they replace (the summary is
 * discarded: a compaction never grows the context).
 */
export async function compactConversation(
  settings: CompactionSettings,
  conversation: CompactionConversation,
  request: {
    trigger: CompactionTrigger;
    tools: readonly ToolSpecification[];
    instructions?: string;
  },
  signal: AbortSignal,
): Promise<CompactionResult> {
  const { history, emit } = conversation;
  const tokenLimit = windowOf(settings);
  const fixedTokens = estimateFixedTokens({ system: settings.systemPrompt, tools: request.tools });
  const currentTokens = history.meter.current(fixedTokens);
  const { trigger } = request;
  // A server that rejected the request has a smaller window than we believed: at most what we sent.
  const window =
    trigger === "context_limit_retry" ? Math.min(tokenLimit, currentTokens) : tokenLimit;
  emit({ type: "session.compaction_start", data: { trigger, currentTokens, tokenLimit } });
  const instructions =
    request.instructions === undefined || request.instructions.trim() === ""
      ? {}
      : { customInstructions: request.instructions.trim() };
  const { fail, succeed } = compactionEnd(emit, trigger, currentTokens, instructions);
  const removed = removedBy(history, window, trigger);
  if (removed === 0) {
    return fail(nothingReason(history));
  }
  const answer = await summariseTwice(settings, conversation, signal, {
    part: history.messages.slice(0, removed),
    window,
    ...(instructions.customInstructions === undefined
      ? {}
      : { instructions: instructions.customInstructions }),
  });
  if (answer.kind === "cancelled") {
    return fail("cancelled", true);
  }
  if (answer.kind === "failed") {
    return fail(`the summary request failed twice: ${answer.message}`);
  }
  const view = history.compactedView(removed, answer.summary);
  const postCompactionTokens =
    fixedTokens + view.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
  if (postCompactionTokens >= currentTokens) {
    // A summary no smaller than what it replaces would only grow the context: it is discarded.
    return fail(
      `the summary would not make the context smaller (about ${currentTokens} tokens before, ${postCompactionTokens} with it): the conversation is kept as it was`,
    );
  }
  return succeed(removed, postCompactionTokens, answer.summary);
}

/**
 * How a compaction ends: `session.compaction_complete` (its failure with the `error` message, or
 * its success with the tokens after it, the messages removed and the summary) and the
 * {@link CompactionResult} returned. Token counts are estimates, in tokens.
 */
function compactionEnd(
  emit: CompactionConversation["emit"],
  trigger: CompactionTrigger,
  preCompactionTokens: number,
  instructions: { customInstructions?: string },
) {
  return {
    fail(message: string, cancelled = false): CompactionResult {
      emit({
        type: "session.compaction_complete",
        data: { success: false, trigger, preCompactionTokens, error: message, ...instructions },
      });
      return { ok: false, cancelled, message };
    },
    succeed(
      messagesRemoved: number,
      postCompactionTokens: number,
      summaryContent: string,
    ): CompactionResult {
      emit({
        type: "session.compaction_complete",
        data: {
          success: true,
          trigger,
          preCompactionTokens,
          postCompactionTokens,
          messagesRemoved,
          summaryContent,
          ...instructions,
        },
      });
      return {
        ok: true,
        messagesRemoved,
        preCompactionTokens,
        postCompactionTokens,
        summaryContent,
      };
    },
  };
}

/**
 * The summary of `part`: a first request whose transcript takes up to 80 % of what the window
 * leaves after the summary, then, if that fails, a second with half as much and tool results
 * cut shorter (case 33 B). Never more than two.
 */
async function summariseTwice(
  settings: CompactionSettings,
  conversation: CompactionConversation,
  signal: AbortSignal,
  input: { part: readonly HistoryMessage[]; window: number; instructions?: string },
): Promise<SummaryAnswer> {
  const { history } = conversation;
  const summaryTokens = Math.min(
    MAX_SUMMARY_TOKENS,
    Math.floor(input.window * SUMMARY_SHARE),
    settings.maxOutputTokens ?? Number.POSITIVE_INFINITY,
  );
  let answer: SummaryAnswer = { kind: "failed", message: "no attempt was made" };
  for (const attempt of [1, 2]) {
    const budgetTokens = Math.floor(
      (input.window - summaryTokens - fixedTokensOfSummaryRequest()) / (attempt === 1 ? 1.25 : 2.5),
    );
    const limits: TranscriptLimits = {
      toolResultCharacters: attempt === 1 ? 2_000 : 500,
      messageCharacters: attempt === 1 ? 8_000 : 2_000,
      budgetTokens: Math.max(256, budgetTokens),
    };
    const transcript = buildTranscript(input.part, (message) => history.isSummary(message), limits);
    answer = await summarise(settings.provider, conversation, signal, {
      transcript,
      summaryTokens,
      ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
    });
    if (answer.kind !== "failed") {
      return answer;
    }
  }
  return answer;
}

/** Estimated tokens of the summary request besides the transcript. */
function fixedTokensOfSummaryRequest(): number {
  return Math.ceil(COMPACTION_SYSTEM_PROMPT.length / 4) + 200;
}

/**
 * How many messages at the start of the view to summarise: everything before the most recent
 * whole turns (at most `keptTurns`) that fit `keptTokens` (a turn = a user message, or an
 * assistant message with all its tool results). 0 when that would remove nothing but the latest user message or summaries.
 */
function splitPoint(history: History, keptTokens: number, keptTurns: number): number {
  const messages = history.messages;
  let start = messages.length;
  let kept = 0;
  let index = messages.length - 1;
  for (let turns = 0; index >= 0 && turns < keptTurns; turns++) {
    let unitStart = index;
    while (unitStart > 0 && messages[unitStart]?.role === "tool") {
      unitStart--;
    }
    let unitTokens = 0;
    for (let position = unitStart; position <= index; position++) {
      unitTokens += estimateMessageTokens(messages[position] as HistoryMessage);
    }
    // The first turn is always summarised: keeping everything would remove nothing. The
    // latest turn's tool results are always kept: the model has not seen them yet, and without
    // them it would only ask for them again (issue 27).
    const unseenResults = turns === 0 && messages[index]?.role === "tool";
    if (unitStart === 0 || (kept + unitTokens > keptTokens && !unseenResults)) {
      break;
    }
    kept += unitTokens;
    start = unitStart;
    index = unitStart - 1;
  }
  const isUser = (message: HistoryMessage) =>
    message.role === "user" && !history.isSummary(message);
  const removed = messages.slice(0, start).filter((message) => !history.isSummary(message));
  // Without a user message in the kept part, the latest one comes back verbatim: no gain.
  const returning = messages.slice(start).some(isUser) ? 0 : removed.some(isUser) ? 1 : 0;
  return removed.length - returning > 0 ? start : 0;
}

type SummaryAnswer =
  | { kind: "summary"; summary: string }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string };

/** Events of a summary request that stay out of the log: the summary is not an assistant reply. */
const SUMMARY_HIDDEN: ReadonlySet<EventInput["type"]> = new Set([
  "assistant.message",
  "assistant.message_delta",
  "assistant.reasoning_delta",
  "assistant.tool_call_start",
]);

/**
 * The summary request: the loop's own {@link requestTurn} with `purpose: "compaction"`, so each
 * attempt (provider retries included) is a turn started when sent, with its retries and usage.
 * No `assistant.message` or deltas: the summary is recorded by `session.compaction_complete`
 * only, so it never enters the view as an assistant reply. Ends the reply's turn itself.
 */
async function summarise(
  provider: Provider,
  { emit, checkpoint: stored }: Pick<CompactionConversation, "emit" | "checkpoint">,
  signal: AbortSignal,
  input: { transcript: string; summaryTokens: number; instructions?: string },
): Promise<SummaryAnswer> {
  const request = summaryRequest(input);
  let openTurnId: string | undefined;
  const filtered = (event: EventInput): void => {
    if (event.type === "assistant.turn_start") {
      openTurnId = event.data.turnId;
    } else if (event.type === "assistant.turn_end") {
      openTurnId = undefined;
    }
    if (!SUMMARY_HIDDEN.has(event.type)) {
      emit(event);
    }
  };
  let result: TurnResult;
  try {
    result = await requestTurn(provider, request, filtered, signal, {
      purpose: "compaction",
      ...(stored === undefined ? {} : { stored }),
    });
  } catch (error) {
    // A provider that throws instead of reporting an error: the open attempt fails.
    if (openTurnId !== undefined) {
      const data = {
        turnId: openTurnId,
        status: "failed" as const,
        errorType: "internal" as const,
      };
      emit({ type: "assistant.turn_end", data });
    }
    return { kind: "failed", message: errorMessage(error) };
  }
  switch (result.kind) {
    case "cancelled":
      return { kind: "cancelled" };
    case "failed":
      return { kind: "failed", message: result.failure.message };
    case "reply": {
      const { finishReason } = result.reply;
      emit({
        type: "assistant.turn_end",
        data: { turnId: result.turnId, status: "completed", finishReason },
      });
      const summary = result.reply.content.trim();
      return summary === ""
        ? { kind: "failed", message: "the model answered the summary request with no text" }
        : { kind: "summary", summary };
    }
  }
}

/** The summary request: the transcript, the user's focus if any, at most `summaryTokens` out. */
function summaryRequest(input: {
  transcript: string;
  summaryTokens: number;
  instructions?: string;
}): ModelRequest {
  const focus =
    input.instructions === undefined
      ? ""
      : `\n\nThe user asks the summary to: ${input.instructions}`;
  return {
    system: COMPACTION_SYSTEM_PROMPT,
    messages: [
      {
        role: "user",
        content: `Summarise this conversation of a coding agent so far.${focus}\n\n<conversation>\n${input.transcript}\n</conversation>`,
      },
    ],
    tools: [],
    maxOutputTokens: input.summaryTokens,
  };
}
