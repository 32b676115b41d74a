import type { AnthropicProviderSettings } from "@ai-sdk/anthropic";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from "@ai-sdk/provider";

/**
 * Anthropic's prompt caching reads a prefix from the cache only up to a block marked with
 * `cache_control` (a breakpoint), at most 4 per request; OpenAI caches prefixes by itself. The
 * cached prefix is, in order, the tools, the system prompt, then the messages
 * (Anthropic's prompt-caching guide, "Cache limitations" and "What can be cached"), and a
 * breakpoint also reads the longest prefix written before it from within 20 blocks.
 *
 * Three breakpoints (opencode's `applyCaching` marks the system prompt and the last two messages
 * alike): the system prompt (so the tools and the system prompt are one cached prefix, also
 * across sessions and after a compaction), the last message (this request's whole prefix is
 * written for the next request), and the user-side message (user text or tool results) before
 * the last assistant reply, where the previous request of this session ended, so this request
 * reads that prefix even when more than 20 blocks (many tool results) were added since.
 */
const CACHE_CONTROL = { type: "ephemeral" } as const;

/**
 * The AI SDK's Anthropic model `modelName` created with `settings`, sending every request's prompt
 * with the cache breakpoints of {@link withBreakpoints}; loaded on the first Anthropic request.
 */
export async function anthropicModel(
  settings: AnthropicProviderSettings,
  modelName: string,
): Promise<LanguageModelV3> {
  const { createAnthropic } = await import("@ai-sdk/anthropic");
  return withCacheBreakpoints(createAnthropic(settings)(modelName));
}

function withCacheBreakpoints(model: LanguageModelV3): LanguageModelV3 {
  const marked = (options: LanguageModelV3CallOptions): LanguageModelV3CallOptions => ({
    ...options,
    prompt: withBreakpoints(options.prompt),
  });
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(marked(options)),
    doStream: (options) => model.doStream(marked(options)),
  };
}

/**
 * `prompt` with Anthropic cache breakpoints (see above): message-level provider options, which the
 * AI SDK's Anthropic provider sends as `cache_control: {"type":"ephemeral"}` on the message's last
 * content block. The given prompt and its messages are not changed (they are kept for later
 * requests, convert.ts); the marked messages are copies.
 */
function withBreakpoints(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const marked = prompt.slice();
  for (const index of breakpointIndexes(prompt)) {
    marked[index] = withBreakpoint(prompt[index] as LanguageModelV3Message);
  }
  return marked;
}

/** The indexes of the system prompt, the last message, and the previous request's last message. */
function breakpointIndexes(prompt: LanguageModelV3Prompt): number[] {
  const indexes = new Set<number>();
  const system = prompt.findLastIndex((message) => message.role === "system");
  if (system >= 0) {
    indexes.add(system);
  }
  const last = prompt.length - 1;
  if (last > system) {
    indexes.add(last);
  }
  const lastReply = prompt.findLastIndex((message) => message.role === "assistant");
  const previousEnd = lastReply - 1;
  if (previousEnd > system && isUserSide(prompt[previousEnd])) {
    indexes.add(previousEnd);
  }
  return [...indexes];
}

function isUserSide(message: LanguageModelV3Message | undefined): boolean {
  return message?.role === "user" || message?.role === "tool";
}

function withBreakpoint(message: LanguageModelV3Message): LanguageModelV3Message {
  return {
    ...message,
    providerOptions: {
      ...message.providerOptions,
      anthropic: { ...message.providerOptions?.anthropic, cacheControl: CACHE_CONTROL },
    },
  } as LanguageModelV3Message;
}
