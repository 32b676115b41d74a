import type { HistoryMessage, ModelRequest } from "../llm/provider.js";

/**
 * Token estimates without a tokenizer: about 4 characters per token for English text and code in
 * the BPE tokenizers of current models, plus a few tokens of framing per message. Used only for
 * what the provider has not counted yet (messages added since the last reported usage), so the
 * error stays small; never run over the whole history per turn.
 */
const CHARACTERS_PER_TOKEN = 4;
/** Role markers and separators each message costs on every wire (tokens). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** What one image costs, roughly (tokens; Anthropic: width × height / 750 for ~1 megapixel). */
export const IMAGE_TOKENS = 1_500;

/** Estimated tokens of a text. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

/** Estimated tokens of one history message, framing included. */
export function estimateMessageTokens(message: HistoryMessage): number {
  switch (message.role) {
    case "user":
      return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content);
    case "tool":
      return (
        MESSAGE_OVERHEAD_TOKENS +
        estimateTextTokens(message.content) +
        (message.images?.length ?? 0) * IMAGE_TOKENS
      );
    case "assistant": {
      let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content);
      for (const part of message.reasoningParts ?? []) {
        tokens += estimateTextTokens(part.text);
      }
      for (const call of message.toolCalls) {
        tokens +=
          MESSAGE_OVERHEAD_TOKENS +
          estimateTextTokens(call.name) +
          estimateTextTokens(call.rawArguments ?? JSON.stringify(call.arguments));
      }
      return tokens;
    }
  }
}

/** Estimated tokens of what every request carries besides the messages: system prompt and tools. */
export function estimateFixedTokens(request: {
  system: string;
  tools: readonly ModelRequest["tools"][number][];
}): number {
  let tokens = estimateTextTokens(request.system);
  for (const tool of request.tools) {
    tokens += estimateToolTokens(tool);
  }
  return tokens;
}

/**
 * Each tool specification's estimate, once: the loop sends the same specification objects every
 * turn (`toolSpecifications` caches them per tool), and serialising a schema per tool per turn
 * was the larger part of this estimate.
 */
const toolTokens = new WeakMap<ModelRequest["tools"][number], number>();

function estimateToolTokens(tool: ModelRequest["tools"][number]): number {
  let tokens = toolTokens.get(tool);
  if (tokens === undefined) {
    tokens =
      MESSAGE_OVERHEAD_TOKENS +
      estimateTextTokens(tool.name) +
      estimateTextTokens(tool.description) +
      estimateTextTokens(JSON.stringify(tool.inputSchema));
    toolTokens.set(tool, tokens);
  }
  return tokens;
}

/**
 * The size of the model's view, kept up to date one message at a time (folded with the history,
 * so a resumed session counts as the live one did).
 *
 * `reported` is the last conversation request's input plus output tokens as the provider
 * reported them; `sinceReport` estimates what was added after it. `viewEstimate` estimates the
 * whole view independently of the provider, which catches servers that truncate silently
 * (case 33 D) and serves when no usage is reported.
 */
export class ContextMeter {
  private reported: number | undefined;
  private sinceReport = 0;
  private viewEstimate = 0;
  /** Input tokens of the last conversation request, as reported. */
  lastReportedInput: number | undefined;

  /** A message joined the view. */
  add(message: HistoryMessage): void {
    const tokens = estimateMessageTokens(message);
    this.sinceReport += tokens;
    this.viewEstimate += tokens;
  }

  /** The provider's usage of a conversation request (not of a compaction request). */
  report(inputTokens: number | undefined, outputTokens: number | undefined): void {
    if (inputTokens === undefined) {
      return;
    }
    this.lastReportedInput = inputTokens;
    this.reported = inputTokens + (outputTokens ?? 0);
    this.sinceReport = 0;
  }

  /** The view was replaced (compaction): nothing reported applies to it any more. */
  reset(messages: readonly HistoryMessage[]): void {
    this.reported = undefined;
    this.sinceReport = 0;
    this.lastReportedInput = undefined;
    this.viewEstimate = messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
  }

  /** Estimated tokens of the view's messages alone. */
  get messageTokens(): number {
    return this.viewEstimate;
  }

  /**
   * Tokens the next request will take: the reported count plus what was added since, or the
   * estimate of the view plus `fixedTokens` (system prompt and tools) when that is larger or
   * nothing was reported.
   */
  current(fixedTokens: number): number {
    const estimated = fixedTokens + this.viewEstimate;
    return this.reported === undefined
      ? estimated
      : Math.max(this.reported + this.sinceReport, estimated);
  }
}
