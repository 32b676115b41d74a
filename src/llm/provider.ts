import type {
  ErrorType,
  FinishReason,
  JsonObject,
  PromptImage,
  ProviderMetadata,
  ReasoningPart,
  ToolRequest,
  Usage,
} from "../events/events.js";

/** Which images a provider's requests carry; those it does not carry become a note to the model. */
export interface ImageInput {
  /** Images the user attached to a prompt. */
  user: boolean;
  /** Images in tool results (e.g. `view` of a PNG). */
  toolResults: boolean;
}

/**
 * The provider port: one small interface between the loop and every model API.
 *
 * Contract: `stream()` yields zero or more progress events and then exactly one terminal event,
 * `done` or `error`, and never throws. Cancellation through `signal` ends the stream with `error`
 * whose `errorType` is `cancelled`. Each API request it makes (retries included) begins with
 * `request_start`, and each failed attempt that is retried ends with `retry`, so the loop can
 * record one turn per request (DESIGN.md, "Principles").
 */
export interface Provider {
  /** `<provider>:<model>` as configured, e.g. `anthropic:claude-sonnet-4-5`, or `<profile>:<model>`
   * for a config profile's model (`lab:m`): the session's model id. */
  readonly id: string;
  /**
   * `<provider>:<model>` on the wire's provider (`openai-compatible:m` for `lab:m`), by which the
   * model catalogue (prices, context windows) and the Ollama default know the model; absent:
   * {@link id}.
   */
  readonly typeId?: string;
  /**
   * Which images its requests carry (the others reach the model as a note, and the loop tells the
   * user); absent: every image is sent.
   */
  readonly imageInput?: ImageInput;
  /**
   * Where its requests go, `<wire> <base URL>` (base-url.ts `endpointName`): recorded on the
   * reasoning parts it returns with provider data, which only this endpoint is sent back.
   */
  readonly endpoint?: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}

/** The history the model sees, in a neutral shape each adapter converts to its wire format. */
export type HistoryMessage =
  | {
      role: "user";
      content: string;
      /** Base64 images; sent to APIs that take image input, named in a note to the others. */
      images?: PromptImage[];
    }
  | {
      role: "assistant";
      content: string;
      reasoningParts?: ReasoningPart[];
      toolCalls: ToolRequest[];
      providerMetadata?: ProviderMetadata;
    }
  | {
      role: "tool";
      toolCallId: string;
      toolName: string;
      content: string;
      isError: boolean;
      /**
       * How the call failed (the log's `error.code`, e.g. `interrupted`): read by a face that words
       * results its own way (agent/loop-types.ts `rewordResult`); adapters do not send it.
       */
      errorCode?: string;
      /** Base64 images; sent only to APIs that take images in tool results. */
      images?: Array<{ mimeType: string; data: string }>;
    };

/** A tool call's result as the model sees it. */
export type ToolResultMessage = Extract<HistoryMessage, { role: "tool" }>;

/** A tool as offered to the model. */
export interface ToolSpecification {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 / OpenAPI subset) of the arguments object. */
  inputSchema: JsonObject;
}

/** One model request. */
export interface ModelRequest {
  system: string;
  messages: HistoryMessage[];
  tools: ToolSpecification[];
  /** Output token cap; the provider's default when absent. */
  maxOutputTokens?: number;
  /**
   * `false`: ask for a non-streaming completion (no deltas: the reply comes whole, as `done`).
   * Default: streamed.
   */
  streaming?: boolean;
  /** HTTP headers added to this request (an app's per-request headers, its user agent). */
  headers?: Record<string, string>;
  /**
   * `low`, `medium`, `high` …: sent as OpenAI's `reasoning_effort` (Chat Completions, Responses,
   * OpenAI-compatible servers; the OpenAI adapters send it to reasoning models only). Anthropic:
   * not sent.
   */
  reasoningEffort?: string;
  /**
   * How tool results' images reach a model whose API takes none in tool results (convert.ts's
   * `ToolImages`): a note in the result (default), or Copilot's user message after the results
   * (and then a prompt's images a model without vision does not take are left out, no note).
   */
  toolImages?: "note" | "user-message";
}

/** The assistant's complete reply to one request. */
export interface AssistantReply {
  content: string;
  reasoningParts: ReasoningPart[];
  toolCalls: ToolRequest[];
  finishReason: FinishReason;
  providerMetadata?: ProviderMetadata;
}

/** A failed model call, categorised (case 17). `message` is bounded and has secrets redacted. */
export interface ProviderFailure {
  errorType: ErrorType | "cancelled";
  message: string;
  statusCode?: number;
  /**
   * The model a 404 from the wire's own API named (http-status-words.ts `unknownModelOf`): the
   * base URL is right and the server has no such model, so the cure is another model, which
   * a face names in its own words (model-setting-names.ts `withUnknownModelCure`).
   */
  unknownModel?: string;
}

/** What a provider stream yields. */
export type LlmEvent =
  /** An API request is being sent now (the first attempt or a retry). */
  | { type: "request_start" }
  /** A piece of visible text. */
  | { type: "text_delta"; text: string }
  /** A piece of reasoning. */
  | { type: "reasoning_delta"; text: string }
  /**
   * The model started a tool call (its arguments stream next; the AI SDK's `tool-input-start`).
   * The loop passes it on as the ephemeral `assistant.tool_call_start`, so faces announce the
   * call while its arguments stream.
   */
  | { type: "tool_call_start"; toolCallId: string; name: string }
  /**
   * The attempt that the last `request_start` began failed before any text or reasoning was
   * shown and will be retried after `delayMs` ms (0 when the retry changes the request instead
   * of waiting). Tool calls announced by `tool_call_start` in the failed attempt are abandoned:
   * they get no result and never run (their arguments never completed).
   */
  | {
      type: "retry";
      attempt: number;
      statusCode?: number;
      errorType: ErrorType;
      errorMessage: string;
      delayMs: number;
    }
  /** Terminal: the reply and its usage (fields absent when the provider did not report them). */
  | { type: "done"; reply: AssistantReply; usage: Usage }
  /** Terminal: the call failed (after retries) or was cancelled. */
  | { type: "error"; failure: ProviderFailure };
