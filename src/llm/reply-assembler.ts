import type {
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import type {
  FinishReason,
  JsonObject,
  ProviderMetadata,
  ReasoningPart,
  ToolRequest,
  Usage,
} from "../events/events.js";
import type { AssistantReply } from "./provider.js";

interface PendingToolCall {
  toolCallId: string;
  name: string;
  rawArguments: string;
  /** Set once the provider reported the call complete (`tool-call` part). */
  complete: boolean;
  providerMetadata?: ProviderMetadata;
}

/**
 * Builds one {@link AssistantReply} from the AI SDK's stream parts (LanguageModelV3StreamPart).
 * Argument text is kept raw and parsed here, once, so that cut-off or malformed arguments are
 * recorded as such instead of being repaired into something that would run (cases 07, 08, 13).
 */
export class ReplyAssembler {
  private content = "";
  private providerMetadata: ProviderMetadata | undefined;
  private readonly reasoning = new Map<string, ReasoningPart>();
  private readonly toolCalls = new Map<string, PendingToolCall>();
  private finish: LanguageModelV3FinishReason | undefined;
  private usage: LanguageModelV3Usage | undefined;

  /**
   * True once the provider sent its `finish` part with a reason. The OpenAI Chat and Responses
   * models send a `finish` part when the body ends even if the server never said why it stopped;
   * that part keeps the SDK's initial `{unified: "other", raw: undefined}`, and means the stream
   * was cut off, not that the reply is complete.
   */
  get finished(): boolean {
    return (
      this.finish !== undefined &&
      !(this.finish.unified === "other" && this.finish.raw === undefined)
    );
  }

  /** Records one part of the provider's stream; parts of other types are ignored. */
  add(part: LanguageModelV3StreamPart): void {
    switch (part.type) {
      case "text-delta":
        this.content += part.delta;
        this.providerMetadata = mergeMetadata(this.providerMetadata, part.providerMetadata);
        return;
      case "text-start":
      case "text-end":
        this.providerMetadata = mergeMetadata(this.providerMetadata, part.providerMetadata);
        return;
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end":
        this.addReasoning(part);
        return;
      case "tool-input-start":
        this.toolCalls.set(part.id, {
          toolCallId: part.id,
          name: part.toolName,
          rawArguments: "",
          complete: false,
        });
        return;
      case "tool-input-delta": {
        const call = this.toolCalls.get(part.id);
        if (call !== undefined) {
          call.rawArguments += part.delta;
        }
        return;
      }
      case "tool-call":
        this.completeToolCall(part);
        return;
      case "finish":
        this.finish = part.finishReason;
        this.usage = part.usage;
        return;
      default:
        return;
    }
  }

  /** A reasoning block's start, text or end: its text and metadata, by block id. */
  private addReasoning(
    part: Extract<
      LanguageModelV3StreamPart,
      { type: "reasoning-start" | "reasoning-delta" | "reasoning-end" }
    >,
  ): void {
    const block = this.reasoning.get(part.id) ?? { text: "" };
    if (part.type === "reasoning-delta") {
      block.text += part.delta;
    }
    const metadata = mergeMetadata(block.providerMetadata, part.providerMetadata);
    if (metadata !== undefined) {
      block.providerMetadata = metadata;
    }
    this.reasoning.set(part.id, block);
  }

  /** A tool call the provider completed: its final arguments and metadata. */
  private completeToolCall(part: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>): void {
    const call: PendingToolCall = {
      toolCallId: part.toolCallId,
      name: part.toolName,
      rawArguments: part.input,
      complete: true,
    };
    const metadata = mergeMetadata(undefined, part.providerMetadata);
    if (metadata !== undefined) {
      call.providerMetadata = metadata;
    }
    // Delete first so the call takes its final position in the order calls completed.
    this.toolCalls.delete(part.toolCallId);
    this.toolCalls.set(part.toolCallId, call);
  }

  /**
   * The reply so far. Calls the provider never completed count as cut off. Reasoning parts with
   * provider data record `endpoint` (the provider's, provider.ts), when given.
   */
  reply(endpoint?: string): { reply: AssistantReply; usage: Usage } {
    const finishReason: FinishReason = this.finish?.unified ?? "other";
    const toolCalls = [...this.toolCalls.values()].map((call) => toToolRequest(call, finishReason));
    const reasoningParts = [...this.reasoning.values()].flatMap((part) =>
      part.text === "" && part.providerMetadata === undefined
        ? []
        : [
            endpoint === undefined || part.providerMetadata === undefined
              ? part
              : { ...part, endpoint },
          ],
    );
    const reply: AssistantReply = {
      content: this.content,
      reasoningParts,
      toolCalls,
      finishReason,
      ...(this.providerMetadata === undefined ? {} : { providerMetadata: this.providerMetadata }),
    };
    return { reply, usage: toUsage(this.usage) };
  }
}

/** Parses raw argument text into a {@link ToolRequest}; see {@link parseToolArguments}. */
function toToolRequest(call: PendingToolCall, finishReason: FinishReason): ToolRequest {
  const parsed = parseToolArguments(call.rawArguments, !call.complete || finishReason === "length");
  return {
    toolCallId: call.toolCallId,
    name: call.name,
    arguments: parsed.arguments,
    ...(parsed.error === undefined
      ? {}
      : { rawArguments: call.rawArguments, argumentsError: parsed.error }),
    ...(call.providerMetadata === undefined ? {} : { providerMetadata: call.providerMetadata }),
  };
}

/**
 * Parses tool-call argument text. Empty text is `{}` (no-argument tools, case 08). A JSON string
 * holding a JSON object is unwrapped once (double encoding, case 13). Anything else that is not a
 * JSON object yields `{}` plus an error: `truncated` for text that does not parse in a call that
 * was cut off (the output limit was hit or the stream ended inside the call, case 07), else
 * `invalid_json`, also for JSON that merely stops early: a model that ended its reply normally
 * (small local models do) is told its arguments are invalid and asked again, not told of an
 * output limit it did not hit.
 */
export function parseToolArguments(
  raw: string,
  cutOff: boolean,
): { arguments: JsonObject; error?: "truncated" | "invalid_json" } {
  if (raw.trim() === "") {
    return cutOff ? { arguments: {}, error: "truncated" } : { arguments: {} };
  }
  try {
    let value: unknown = JSON.parse(raw);
    if (typeof value === "string" && value.trimStart().startsWith("{")) {
      value = JSON.parse(value);
    }
    return isJsonObject(value) ? { arguments: value } : { arguments: {}, error: "invalid_json" };
  } catch {
    return { arguments: {}, error: cutOff ? "truncated" : "invalid_json" };
  }
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mergeMetadata(
  current: ProviderMetadata | undefined,
  addition: SharedV3ProviderMetadata | undefined,
): ProviderMetadata | undefined {
  if (addition === undefined) {
    return current;
  }
  const merged: ProviderMetadata = { ...current };
  for (const [provider, values] of Object.entries(addition)) {
    const defined = Object.fromEntries(
      Object.entries(values).filter(([, value]) => value !== undefined && value !== null),
    ) as JsonObject;
    if (Object.keys(defined).length > 0) {
      merged[provider] = { ...merged[provider], ...defined };
    }
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/**
 * The usage of a reply as the log records it (`assistant.usage`): a count the server did not
 * report is left out. The AI SDK's usage mappings fill 0 for a cache or reasoning count absent
 * from the server's usage (Chat Completions `prompt_tokens_details.cached_tokens`, Responses
 * `input_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens` …), so such a count is
 * kept only when the raw usage the server sent (`usage.raw`) holds its field; without a raw usage,
 * as the SDK gave it (README "JSON output": "a count no request reported is left out").
 */
function toUsage(usage: LanguageModelV3Usage | undefined): Usage {
  if (usage === undefined) {
    return {};
  }
  const result: Usage = {};
  const { raw } = usage;
  const reported = (fields: readonly (readonly string[])[]) =>
    raw === undefined || fields.some((path) => fieldAt(raw, path) !== undefined);
  setDefined(result, "inputTokens", usage.inputTokens.total);
  setDefined(result, "outputTokens", usage.outputTokens.total);
  if (reported(CACHE_READ_FIELDS)) {
    setDefined(result, "cacheReadTokens", usage.inputTokens.cacheRead);
  }
  if (reported(CACHE_WRITE_FIELDS)) {
    setDefined(result, "cacheWriteTokens", usage.inputTokens.cacheWrite);
  }
  if (reported(REASONING_FIELDS)) {
    setDefined(result, "reasoningTokens", usage.outputTokens.reasoning);
  }
  return result;
}

/** Where each wire's raw usage holds the cache reads: Chat Completions, Responses, Anthropic. */
const CACHE_READ_FIELDS = [
  ["prompt_tokens_details", "cached_tokens"],
  ["input_tokens_details", "cached_tokens"],
  ["cache_read_input_tokens"],
] as const;
/** Where each wire's raw usage holds the cache writes. */
const CACHE_WRITE_FIELDS = [
  ["prompt_tokens_details", "cache_write_tokens"],
  ["input_tokens_details", "cache_write_tokens"],
  ["cache_creation_input_tokens"],
] as const;
/** Where each wire's raw usage holds the reasoning tokens. */
const REASONING_FIELDS = [
  ["completion_tokens_details", "reasoning_tokens"],
  ["output_tokens_details", "reasoning_tokens"],
  ["output_tokens_details", "thinking_tokens"],
] as const;

/** The value at `path` in `value`, a JSON object; `undefined` when absent or `null`. */
function fieldAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null) {
      return undefined;
    }
    at = (at as Record<string, unknown>)[key];
  }
  return at ?? undefined;
}

function setDefined(target: Usage, key: keyof Usage, value: number | undefined): void {
  if (value !== undefined && value !== null && Number.isFinite(value)) {
    target[key] = value;
  }
}
