import type { CompactionTrigger } from "../events/events.js";
import type { ProviderFailure, ToolSpecification } from "../llm/provider.js";
import {
  type CompactionConversation,
  type CompactionSettings,
  compactConversation,
  DEFAULT_COMPACTION_THRESHOLD,
  windowOf,
} from "./compaction.js";
import type { History } from "./history.js";
import { estimateFixedTokens, estimateMessageTokens } from "./token-estimate.js";

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
 * The loop's one hook into compaction, made once per prompt: {@link CompactionGuard.request}
 * wraps every conversation request. Before it: compacts at the threshold, or when the model
 * changed to one whose window the view no longer fits (`model_switch`) — unless the latest user
 * message alone fills the window, which no compaction can change. After a context-length
 * failure: compacts and replays the request once (`context_limit_retry`). After a reply: warns
 * once when the server reported far fewer prompt tokens than were sent (case 33 D). A failed
 * compaction is not tried again in the same prompt: the request is sent as it is, and if the
 * server rejects it for its length the prompt fails with `context_length_exceeded` instead of
 * looping.
 */
export class CompactionGuard {
  /** Why this prompt's compaction failed; no other is tried in the same prompt. */
  private failure: string | undefined;
  private warned = false;

  constructor(
    private readonly settings: CompactionSettings,
    private readonly conversation: CompactionConversation,
    /** The tools the next request offers (they can change between requests: MCP servers). */
    private readonly tools: () => readonly ToolSpecification[],
    private readonly signal: AbortSignal,
  ) {}

  /** Runs `send` (one conversation request), compacting before or after it as described above. */
  async request<T extends TurnLike>(send: () => Promise<T>): Promise<T | Unanswered> {
    const { history } = this.conversation;
    const tokenLimit = windowOf(this.settings);
    const fixedTokens = estimateFixedTokens({
      system: this.settings.systemPrompt,
      tools: this.tools(),
    });
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
      const before = await this.compact(switched ? "model_switch" : "threshold");
      // A failed compaction still sends the request: the server, not our estimate, has the last word.
      if (before?.kind === "cancelled") {
        return before;
      }
    }
    const sentTokens = fixedTokens + history.meter.messageTokens;
    const result = await send();
    if (result.kind === "failed" && result.failure.errorType === "context_length_exceeded") {
      if (this.failure !== undefined) {
        return exhausted(this.settings, this.failure);
      }
      const after = await this.compact("context_limit_retry");
      return after ?? (await send());
    }
    if (result.kind === "reply") {
      this.checkTruncation(sentTokens);
    }
    return result;
  }

  /** Compacts once; `undefined` on success, else what the request should end as. */
  private async compact(trigger: CompactionTrigger): Promise<Unanswered | undefined> {
    const result = await compactConversation(
      this.settings,
      this.conversation,
      { trigger, tools: this.tools() },
      this.signal,
    );
    if (result.ok) {
      return undefined;
    }
    if (result.cancelled) {
      return { kind: "cancelled" };
    }
    this.failure = result.message;
    return exhausted(this.settings, result.message);
  }

  private checkTruncation(sentTokens: number): void {
    const reported = this.conversation.history.meter.lastReportedInput;
    if (
      this.warned ||
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
        message: `The server counted ${reported} prompt tokens for a request of about ${sentTokens}: it probably cut the prompt to fit its own context size, dropping the start (system prompt, tools, early messages). Raise the server's context size (Ollama: OLLAMA_CONTEXT_LENGTH or a Modelfile's num_ctx) and tell turnloop with --context-window.`,
      },
    });
  }
}

/**
 * Estimated tokens of the latest user message, which every compacted view keeps: when it alone
 * fills the window, compaction cannot help and the request goes out as it is.
 */
function latestUserTokens(history: History): number {
  const latest = history.messages.findLast(
    (message) => message.role === "user" && !history.isSummary(message),
  );
  return latest === undefined ? 0 : estimateMessageTokens(latest);
}

function exhausted(settings: CompactionSettings, reason: string): Unanswered {
  return {
    kind: "failed",
    failure: {
      errorType: "context_length_exceeded",
      message: `The context is exhausted: the conversation no longer fits the context window of ${settings.provider.id} (${windowOf(settings)} tokens; --context-window sets it) and compacting it failed: ${reason}`,
    },
  };
}
