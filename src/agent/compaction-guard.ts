import type { CompactionTrigger } from "../events/events.js";
import type { SecretValue } from "../events/secrets.js";
import { knownContextWindowOf } from "../llm/context-window.js";
import { COMMAND_LINE_SETTINGS, type ModelSettingNames } from "../llm/models.js";
import type { ProviderFailure, ToolSpecification } from "../llm/provider.js";
import {
  type CompactionConversation,
  type CompactionSettings,
  compactConversation,
  DEFAULT_COMPACTION_THRESHOLD,
  windowOf,
} from "./compaction.js";
import type { History } from "./history.js";
import type { PromptTooLarge, UserPrompt } from "./loop-types.js";
import { type FitResult, turnResultBudget } from "./result-budget.js";
import { estimateFixedTokens, estimateMessageTokens, IMAGE_TOKENS } from "./token-estimate.js";

/**
 * A reply counts as silently truncated (case 33 D) when the server reports less than this share
 * of the tokens we estimate were sent, for a request of at least {@link TRUNCATION_MIN_SENT}.
 */
const TRUNCATION_SHARE = 0.5;
/** Requests smaller than this (tokens) are not checked: Ollama's smallest default is 2,048. */
const TRUNCATION_MIN_SENT = 3_000;

/** What a conversation request of the loop can end as (the loop's own result type fits it). */
type TurnLike =
  | { kind: "reply" }
  | { kind: "cancelled" }
  | { kind: "failed"; failure: ProviderFailure };
/** A request that got no reply. */
type Unanswered = Exclude<TurnLike, { kind: "reply" }>;

/**
 * Compaction's settings, with how the face names its settings (loop-types.ts `settingNames`):
 * every message that says what to set (the context window, the model) says it in those words.
 */
type NamedSettings = CompactionSettings & { settingNames?: ModelSettingNames };

/** The face's names of its settings; the command line's by default. */
function namesOf(settings: NamedSettings): ModelSettingNames {
  return settings.settingNames ?? COMMAND_LINE_SETTINGS;
}

/**
 * The loop's one hook into compaction, made once per prompt: {@link CompactionGuard.request}
 * wraps every conversation request. Before it: compacts at the threshold, or when the model
 * changed to one whose window the view no longer fits (`model_switch`) — unless the latest user
 * message alone fills the window, which no compaction can change. After a context-length
 * failure: compacts and replays the request once (`context_limit_retry`). After a reply: warns
 * when the server reported far fewer prompt tokens than were sent (case 33 D), once per session
 * and model. A failed
 * compaction is not tried again in the same prompt: the request is sent as it is when it fits,
 * and if the server rejects it for its length the prompt fails with `context_length_exceeded`
 * instead of looping. No request is sent, and the prompt fails the same way naming what is too
 * big, when a compaction leaves a view that does not fit the window (for a rejected request: is
 * not smaller than it), or when a second compaction would follow one with no model reply in
 * between (issue 27); the reply to a replayed request counts, so a second rejection after it is
 * compacted and replayed again. Nor is one sent when the system prompt and the tool definitions
 * alone fill the window: no compaction can make room, and a server with that window would reject
 * the request or silently cut its start (case 33 D).
 */
export class CompactionGuard {
  /** Why this prompt's compaction failed; no other is tried in the same prompt. */
  private failure: string | undefined;
  /** A compaction succeeded and no conversation request has been answered since. */
  private compactedSinceReply = false;
  private warned = false;
  /** The server's words when it rejected this prompt's request for its length (trial 39, F9). */
  private rejection: string | undefined;

  constructor(
    private readonly settings: NamedSettings,
    private readonly conversation: CompactionConversation,
    /** The tools the next request offers (they can change between requests: MCP servers). */
    private readonly tools: () => readonly ToolSpecification[],
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Fits the results of the calls of the latest assistant message to the per-turn budget
   * (result-budget.ts), before they are recorded.
   */
  fitResults(calls: number, sessionDirectory: string, secrets: readonly SecretValue[]): FitResult {
    return turnResultBudget({
      window: windowOf(this.settings),
      fixedTokens: this.fixedTokens(),
      history: this.conversation.history,
      calls,
      sessionDirectory,
      secrets,
    });
  }

  /** Runs `send` (one conversation request), compacting before or after it as described above. */
  async request<T extends TurnLike>(send: () => Promise<T>): Promise<T | Unanswered> {
    const { history } = this.conversation;
    const tokenLimit = windowOf(this.settings);
    const fixedTokens = this.fixedTokens();
    if (fixedTokens >= tokenLimit) {
      return fixedOverflow(this.settings, tokenLimit, fixedTokens, this.tools().length);
    }
    const currentTokens = history.meter.current(fixedTokens);
    const threshold =
      tokenLimit * (this.settings.compactionThreshold ?? DEFAULT_COMPACTION_THRESHOLD);
    if (
      currentTokens > threshold &&
      this.failure === undefined &&
      !this.signal.aborted &&
      fixedTokens + latestUserTokens(history) < tokenLimit
    ) {
      const switched =
        history.lastModel !== undefined && history.lastModel !== this.settings.provider.id;
      const before = await this.compact(switched ? "model_switch" : "threshold", tokenLimit);
      // A failed compaction still sends a request that fits: the server has the last word.
      if (before !== undefined && (before.kind === "cancelled" || before.overflow)) {
        return before.unanswered;
      }
    }
    const sentTokens = fixedTokens + history.meter.messageTokens;
    const result = await send();
    if (result.kind === "failed" && result.failure.errorType === "context_length_exceeded") {
      this.rejection = result.failure.message;
      if (this.failure !== undefined) {
        const window = Math.min(tokenLimit, sentTokens);
        return exhausted(this.settings, window, this.failure, this.rejection);
      }
      // A server that rejected the request has a smaller window than we believed: at most what we sent.
      const after = await this.compact("context_limit_retry", Math.min(tokenLimit, sentTokens));
      if (after !== undefined) {
        return after.unanswered;
      }
      const replayTokens = this.fixedTokens() + history.meter.messageTokens;
      return this.answered(await send(), replayTokens);
    }
    return this.answered(result, sentTokens);
  }

  /**
   * Notes what a sent request ended as: a reply (the replay of a rejected request's too) allows
   * the next compaction and is checked for a server that cut the prompt (`sentTokens`: tokens).
   */
  private answered<T extends TurnLike>(result: T, sentTokens: number): T {
    if (result.kind === "reply") {
      this.compactedSinceReply = false;
      this.checkTruncation(sentTokens);
    }
    return result;
  }

  private fixedTokens(): number {
    return estimateFixedTokens({ system: this.settings.systemPrompt, tools: this.tools() });
  }

  /**
   * Compacts once; `undefined` when the next request may be sent, else what it should end as.
   * `overflow` is set when the request must not be sent at all: a second compaction without a
   * model reply in between, or a view that even compacted does not fit `window` (tokens).
   */
  private async compact(
    trigger: CompactionTrigger,
    window: number,
  ): Promise<
    { unanswered: Unanswered; kind: "cancelled" | "failed"; overflow: boolean } | undefined
  > {
    const overflow = (reason: string) => ({
      unanswered: overflowFailure(this.settings, window, reason, this.rejection),
      kind: "failed" as const,
      overflow: true,
    });
    if (this.compactedSinceReply) {
      return overflow(
        `it was compacted once in this prompt and the model has not answered since; ${describeView(this.conversation.history, this.fixedTokens())}`,
      );
    }
    const result = await compactConversation(
      this.settings,
      this.conversation,
      { trigger, tools: this.tools() },
      this.signal,
    );
    if (!result.ok && result.cancelled) {
      return { unanswered: { kind: "cancelled" }, kind: "cancelled", overflow: false };
    }
    if (result.ok) {
      this.compactedSinceReply = true;
    } else {
      this.failure = result.message;
    }
    const nextTokens = this.conversation.history.meter.current(this.fixedTokens());
    if (nextTokens >= window) {
      const how = result.ok ? "even compacted" : `compaction failed (${result.message}), and`;
      return overflow(`${how} ${describeView(this.conversation.history, this.fixedTokens())}`);
    }
    return result.ok
      ? undefined
      : {
          unanswered: exhausted(this.settings, window, result.message, this.rejection),
          kind: "failed",
          overflow: false,
        };
  }

  /**
   * Warns when the server counted far fewer prompt tokens than were sent: once per session and
   * model (History `truncationWarned`, folded from the log, so a continued session is not told
   * again at each prompt), and again after a switch to another model that cuts too.
   */
  private checkTruncation(sentTokens: number): void {
    const { history } = this.conversation;
    const reported = history.meter.lastReportedInput;
    if (
      this.warned ||
      history.truncationWarned.has(history.lastModel ?? "") ||
      reported === undefined ||
      reported >= sentTokens * TRUNCATION_SHARE ||
      sentTokens < TRUNCATION_MIN_SENT
    ) {
      return;
    }
    this.warned = true;
    this.conversation.emit({
      type: "session.warning",
      data: {
        warningType: "prompt_truncated",
        message: `The server counted ${reported} prompt tokens for a request of about ${sentTokens}: it probably cut the prompt to fit its own context size, dropping the start (system prompt, tools, early messages). Raise the server's context size (Ollama: OLLAMA_CONTEXT_LENGTH or a Modelfile's num_ctx) and tell turnloop with ${namesOf(this.settings).contextWindow}.`,
      },
    });
  }
}

/**
 * Estimated tokens of the latest user message, which every compacted view keeps: when it alone
 * fills the window, compaction cannot help and the request goes out as it is.
 */
function latestUserTokens(history: History): number {
  const latest = history.latestUserMessage;
  return latest === undefined ? 0 : estimateMessageTokens(latest);
}

/**
 * The window a failure message names, `window` tokens: the configured one, or the smaller one a
 * server's rejection of a request of that size taught (both figures then, each for what it is);
 * the window the server's own words (`rejection`) name instead of that estimate, when they do.
 */
function windowPhrase(settings: NamedSettings, window: number, rejection?: string): string {
  const configured = windowOf(settings);
  const setting = `${namesOf(settings).contextWindow} sets it`;
  const named = rejection === undefined ? undefined : windowNamed(rejection);
  if (named !== undefined) {
    return `${named} tokens as the server says, though ${configured} are configured; ${setting}`;
  }
  return window < configured
    ? `under about ${window} tokens: the server rejected a request that size, though ${configured} are configured; ${setting}`
    : `${configured} tokens; ${setting}`;
}

/**
 * The context window a server's rejection names, in the words of OpenAI's and vLLM's ("maximum
 * context length is 8192 tokens"), llama.cpp's ("the available context size (8192 tokens)") and
 * Anthropic's ("209000 tokens > 200000 maximum"); undefined when it names none.
 */
function windowNamed(rejection: string): number | undefined {
  const match =
    /(?:maximum context length|context (?:window|size|length)) (?:is |of )?\(?(\d+) tokens/i.exec(
      rejection,
    ) ?? /tokens > (\d+) maximum/i.exec(rejection);
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 10);
}

/** `text` with the server's words after it, when a server rejected the request. */
function withServerWords(text: string, rejection: string | undefined): string {
  if (rejection === undefined) {
    return text;
  }
  return `${text.endsWith(".") ? text : `${text}.`} The server said: ${rejection}`;
}

/** The failure of a prompt whose next request would not fit `window` (tokens). */
function overflowFailure(
  settings: NamedSettings,
  window: number,
  reason: string,
  rejection?: string,
): Unanswered {
  const phrase = windowPhrase(settings, window, rejection);
  return {
    kind: "failed",
    failure: {
      errorType: "context_length_exceeded",
      message: withServerWords(
        `The context is exhausted: the next request does not fit the context window of ${settings.provider.id} (${phrase}): ${reason}`,
        rejection,
      ),
    },
  };
}

/**
 * The failure of a prompt whose system prompt and `toolCount` tool definitions alone, about
 * `fixedTokens` tokens, fill `window` (tokens): what to change, since no compaction can help.
 */
function fixedOverflow(
  settings: NamedSettings,
  window: number,
  fixedTokens: number,
  toolCount: number,
): Unanswered {
  return overflowFailure(
    settings,
    window,
    `the system prompt and the ${toolCount} tool definitions alone take about ${fixedTokens} tokens, which no compaction can make room for: set the window the model's server really has, or configure fewer MCP servers`,
  );
}

/**
 * What the next request would take, for an overflow message: one total, the figure the guard
 * decides with (the meter's `current`: the server's count of the last request plus what was
 * added since, or our estimate when larger), and the parts that make it up, biggest named: the
 * latest turn's tool results, the latest user message, the system prompt and tools (estimated),
 * and the rest (earlier messages and summaries), so the parts add up to the total.
 */
function describeView(history: History, fixedTokens: number): string {
  const { messages } = history;
  let resultsStart = messages.length;
  while (resultsStart > 0 && messages[resultsStart - 1]?.role === "tool") {
    resultsStart--;
  }
  const results = messages.slice(resultsStart);
  const resultTokens = results.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
  const userTokens = latestUserTokens(history);
  const total = history.meter.current(fixedTokens);
  const rest = Math.max(0, total - fixedTokens - resultTokens - userTokens);
  const parts = [
    ...(results.length === 0
      ? []
      : [`the ${results.length} tool results of the latest turn about ${resultTokens}`]),
    `the latest user message about ${userTokens}`,
    `the system prompt and tool definitions about ${fixedTokens}`,
    `earlier messages and summaries about ${rest}`,
  ];
  return `the next request would take about ${total} tokens: ${parts.join(", ")}.`;
}

function exhausted(
  settings: NamedSettings,
  window: number,
  reason: string,
  rejection: string | undefined,
): Unanswered {
  const phrase = windowPhrase(settings, window, rejection);
  return {
    kind: "failed",
    failure: {
      errorType: "context_length_exceeded",
      message: withServerWords(
        `The context is exhausted: the conversation no longer fits the context window of ${settings.provider.id} (${phrase}) and compacting it failed: ${reason}`,
        rejection,
      ),
    },
  };
}

/**
 * Why `prompt` cannot be sent at all: the system prompt, `tools` (the first request's) and the
 * prompt, estimated as compaction estimates (token-estimate.ts: from lengths, so a 50 MB prompt
 * costs no more than a short one), exceed the model's known context window (trial 32, F4); or the
 * system prompt and tools alone fill the window the guard sends within, a default one when none
 * is known ({@link windowOf}; trial 45, F1: the message says a larger window or fewer tools is the
 * cure). The message names the sizes and what to do in `settingNames`' words, the face's own.
 * Undefined otherwise: a prompt for a window not known (llm/context-window.ts) is sent as it is.
 */
export function promptBeyondWindow(
  settings: NamedSettings,
  prompt: Pick<UserPrompt, "content" | "images">,
  tools: readonly ToolSpecification[],
): (PromptTooLarge & { message: string }) | undefined {
  const { id, typeId } = settings.provider;
  const fixed = estimateFixedTokens({ system: settings.systemPrompt, tools });
  const images = (prompt.images?.length ?? 0) * IMAGE_TOKENS;
  const tokens = fixed + images + estimateMessageTokens({ role: "user", content: prompt.content });
  const names = namesOf(settings);
  const limit = windowOf(settings);
  if (fixed >= limit) {
    return {
      estimatedTokens: tokens,
      contextWindow: limit,
      message: `the system prompt and the ${tools.length} tool definitions alone take about ${fixed} tokens, more than the context window of ${id}, ${limit} tokens, before any prompt; nothing was sent. If ${id}'s window is larger, set it with ${names.contextWindow}; else use a model with a larger window (${names.model}), or configure fewer MCP servers or tools.`,
    };
  }
  const window = knownContextWindowOf(id, settings, {}, typeId);
  if (window === undefined || tokens <= window) {
    return undefined;
  }
  return {
    estimatedTokens: tokens,
    contextWindow: window,
    message: `the prompt is about ${tokens} tokens with the system prompt and tools (${prompt.content.length} characters), more than the context window of ${id}, ${window} tokens; nothing was sent. Send a smaller part of it or fewer files, use a model with a larger window (${names.model}), or, if ${id}'s window is larger, set it with ${names.contextWindow}.`,
  };
}
