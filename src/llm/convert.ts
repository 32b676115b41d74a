import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { JsonObject, PromptImage, ProviderMetadata } from "../events/events.js";
import type { HistoryMessage, ToolSpecification } from "./provider.js";

/**
 * Rewrites provider data before it is sent back. The Responses API with `store: false` rejects
 * replayed items that carry an `id` ("Item with id 'rs_…' not found", case 23), so that adapter
 * drops ids and keeps the encrypted reasoning.
 */
export type ReplayFilter = (metadata: ProviderMetadata) => SharedV3ProviderOptions;

const keepAll: ReplayFilter = (metadata) => metadata;

/**
 * Converts our neutral history into the AI SDK's prompt (LanguageModelV3Prompt).
 *
 * Keeps every request valid for every provider: whitespace-only text is dropped, an assistant
 * message with nothing left is omitted (case 16), and consecutive tool results become one tool
 * message so Anthropic gets them as the leading blocks of one user turn (case 11). `imageInput`:
 * whether the API takes images in tool results; `userImages` (default: the same) in user
 * messages (Chat Completions takes `image_url` parts there only); when not, a note names them.
 * `toolImages`: how tool results' images reach an API that takes none in tool results (see
 * {@link ToolImages}). `endpoint`: the provider's (provider.ts); a reasoning part with provider
 * data is sent only to the endpoint that issued it (its encrypted or signed block is refused
 * elsewhere, 400 `invalid_encrypted_content`), and never when the log did not record one.
 *
 * Each history message is converted once per set of these options and its conversion reused by
 * later requests, and the prompt of a history array is kept and extended by the messages added
 * since (a long session's request converts only what is new, issue 26 figure 3): history
 * messages must not be changed in place (the agent's `History` adds and replaces whole messages),
 * and the returned prompt's messages must not be changed either.
 */
export function toPrompt(
  system: string,
  history: readonly HistoryMessage[],
  replayFilter: ReplayFilter = keepAll,
  imageInput = false,
  userImages = imageInput,
  toolImages: ToolImages = "note",
  endpoint?: string,
): LanguageModelV3Prompt {
  const options: ConversionOptions = {
    replayFilter,
    imageInput,
    userImages,
    toolImages,
    endpoint,
    flags: `${imageInput} ${userImages} ${toolImages} ${endpoint}`,
  };
  if (toolImages === "user-message" && !imageInput) {
    return withImagesAfterResults(system, history, options);
  }
  const kept = keptPrompt(history, options);
  for (let index = kept.messages.length; index < history.length; index++) {
    const message = history[index] as HistoryMessage;
    kept.messages.push(message);
    append(kept.prompt, convertedOnce(message, options));
  }
  const prompt = kept.prompt.slice();
  prompt[0] = { role: "system", content: system };
  // No empty system prompt (an app's `systemMessage` replaced by ""): Anthropic refuses empty text.
  return system === "" ? prompt.slice(1) : prompt;
}

/**
 * The prompt last built from a history array (its first message a stand-in for the system
 * prompt), with the history messages it was built from.
 */
interface KeptPrompt {
  options: ConversionOptions;
  messages: HistoryMessage[];
  prompt: LanguageModelV3Prompt;
}

const keptPrompts = new WeakMap<readonly HistoryMessage[], KeptPrompt>();

/**
 * The prompt kept for `history` when it was built under equal options from messages that still
 * begin `history` (messages were only added since); otherwise a new empty one, kept instead.
 */
function keptPrompt(history: readonly HistoryMessage[], options: ConversionOptions): KeptPrompt {
  const kept = keptPrompts.get(history);
  if (
    kept !== undefined &&
    sameOptions(kept.options, options) &&
    kept.messages.length <= history.length &&
    kept.messages.every((message, index) => history[index] === message)
  ) {
    return kept;
  }
  const fresh: KeptPrompt = { options, messages: [], prompt: [{ role: "system", content: "" }] };
  keptPrompts.set(history, fresh);
  return fresh;
}

/**
 * The prompt when tool results' images follow the results as user messages: built whole each
 * time, since the images held and the calls' paths depend on the messages around each result.
 */
function withImagesAfterResults(
  system: string,
  history: readonly HistoryMessage[],
  options: ConversionOptions,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = system === "" ? [] : [{ role: "system", content: system }];
  const images = new ImagesAfterResults(options.userImages);
  for (const message of history) {
    if (message.role !== "tool") {
      prompt.push(...images.take());
    }
    const converted =
      message.role === "tool" && (message.images ?? []).length > 0
        ? convertMessage(images.hold(message), options)
        : convertedOnce(message, options);
    if (message.role === "assistant") {
      images.noteCalls(message.toolCalls);
    }
    append(prompt, converted);
  }
  prompt.push(...images.take());
  return prompt;
}

/** Adds a conversion to `prompt`; a tool message right after another joins it. */
function append(prompt: LanguageModelV3Prompt, converted: LanguageModelV3Message | undefined) {
  if (converted === undefined) {
    return;
  }
  const previous = prompt.at(-1);
  if (converted.role === "tool" && previous?.role === "tool") {
    // A new message: both may be conversions kept for later requests.
    prompt[prompt.length - 1] = {
      role: "tool",
      content: [...previous.content, ...converted.content],
    };
  } else {
    prompt.push(converted);
  }
}

/** The options of a conversion; a kept one is reused under the same filter and `flags`. */
interface ConversionOptions {
  replayFilter: ReplayFilter;
  imageInput: boolean;
  userImages: boolean;
  toolImages: ToolImages;
  endpoint: string | undefined;
  /** The four options above as one text. */
  flags: string;
}

function sameOptions(one: ConversionOptions, other: ConversionOptions): boolean {
  return one.replayFilter === other.replayFilter && one.flags === other.flags;
}

/** The latest conversion of each history message, with its options (see {@link toPrompt}). */
const conversions = new WeakMap<
  HistoryMessage,
  { options: ConversionOptions; converted: LanguageModelV3Message | undefined }
>();

/** The conversion of `message` (not a held tool result), or its kept one under equal `options`. */
function convertedOnce(
  message: HistoryMessage,
  options: ConversionOptions,
): LanguageModelV3Message | undefined {
  const kept = conversions.get(message);
  if (kept !== undefined && sameOptions(kept.options, options)) {
    return kept.converted;
  }
  const converted =
    message.role === "user"
      ? userMessage(message, options.userImages, options.toolImages === "user-message")
      : convertMessage(message, options);
  conversions.set(message, { options, converted });
  return converted;
}

/**
 * How images reach an API that takes none in tool results: `note` (turnloop's way) a note in the
 * result, and a note in place of a prompt's images the model does not take; `user-message` (the
 * Copilot CLI's way, the SDK face) the result's text alone, then, after the turn's results, one
 * user message per result with images: the text "Image file at path <path>" (the call's `path`
 * argument; no text without one) and the images, or nothing when the model takes no images at
 * all, and a prompt's images dropped without a note for such a model (the Copilot SDK's replay
 * snapshots `session_config/vision_enabled_then_disabled_via_setmodel` and
 * `…/should_accept_blob_attachments`).
 */
export type ToolImages = "note" | "user-message";

/** The user messages that carry tool results' images (`user-message` above). */
class ImagesAfterResults {
  private readonly paths = new Map<string, string>();
  private held: LanguageModelV3Message[] = [];

  constructor(private readonly userImages: boolean) {}

  /** Remembers the `path` argument of each call, for the text of its images' message. */
  noteCalls(calls: ReadonlyArray<{ toolCallId: string; arguments: JsonObject }>): void {
    for (const call of calls) {
      const path = call.arguments.path;
      if (typeof path === "string") {
        this.paths.set(call.toolCallId, path);
      }
    }
  }

  /** The result without its images, which are held for the message after the results. */
  hold(message: Extract<HistoryMessage, { role: "tool" }>): HistoryMessage {
    const images = message.isError ? [] : (message.images ?? []);
    if (images.length === 0) {
      return message;
    }
    if (this.userImages) {
      const path = this.paths.get(message.toolCallId);
      this.held.push({
        role: "user",
        content: [
          ...(path === undefined
            ? []
            : [{ type: "text" as const, text: `Image file at path ${path}` }]),
          ...images.map((image) => ({
            type: "file" as const,
            data: image.data,
            mediaType: image.mimeType,
          })),
        ],
      });
    }
    const { images: _images, ...text } = message;
    return text;
  }

  /** The held messages, once the results they follow are all in the prompt. */
  take(): LanguageModelV3Message[] {
    const held = this.held;
    this.held = [];
    return held;
  }
}

function convertMessage(
  message: HistoryMessage,
  { replayFilter, imageInput, endpoint }: ConversionOptions,
): LanguageModelV3Message | undefined {
  switch (message.role) {
    case "user":
      return userMessage(message, imageInput);
    case "tool": {
      const images = message.images ?? [];
      const part: LanguageModelV3ToolResultPart = {
        type: "tool-result",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: toolOutput(message, images, imageInput),
      };
      return { role: "tool", content: [part] };
    }
    case "assistant": {
      const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
      for (const reasoning of message.reasoningParts ?? []) {
        if (reasoning.providerMetadata !== undefined && reasoning.endpoint !== endpoint) {
          continue;
        }
        content.push({
          type: "reasoning",
          text: reasoning.text,
          ...optionsOf(reasoning.providerMetadata, replayFilter),
        });
      }
      if (message.content.trim() !== "") {
        content.push({
          type: "text",
          text: message.content,
          ...optionsOf(message.providerMetadata, replayFilter),
        });
      }
      for (const call of message.toolCalls) {
        content.push({
          type: "tool-call",
          toolCallId: call.toolCallId,
          toolName: call.name,
          input: call.arguments,
          ...optionsOf(call.providerMetadata, replayFilter),
        });
      }
      const hasVisibleContent = content.some((part) => part.type !== "reasoning");
      return hasVisibleContent ? { role: "assistant", content } : undefined;
    }
  }
}

function userMessage(
  message: Extract<HistoryMessage, { role: "user" }>,
  imageInput: boolean,
  dropImages = false,
): LanguageModelV3Message {
  const images = message.images ?? [];
  if (images.length === 0 || (!imageInput && dropImages)) {
    return { role: "user", content: [{ type: "text", text: message.content }] };
  }
  if (!imageInput) {
    const note = `[${imagesNamed(images)}: this model's API does not take images.]`;
    const text = message.content === "" ? note : `${message.content}\n\n${note}`;
    return { role: "user", content: [{ type: "text", text }] };
  }
  return {
    role: "user",
    content: [
      ...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]),
      ...images.map((image) => ({
        type: "file" as const,
        data: image.data,
        mediaType: image.mimeType,
      })),
    ],
  };
}

/** "An image (image/png, 68 bytes) was attached but is not shown", or the plural. */
function imagesNamed(images: readonly PromptImage[]): string {
  const first = images[0];
  if (images.length === 1 && first !== undefined) {
    const source = first.uri === undefined ? "" : `, ${first.uri}`;
    const details = `${first.mimeType}, ${base64Bytes(first.data)} bytes${source}`;
    return `An image (${details}) was attached but is not shown`;
  }
  const types = images.map((image) => image.mimeType).join(", ");
  return `${images.length} images (${types}) were attached but are not shown`;
}

/** Bytes a base64 text decodes to. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function toolOutput(
  message: Extract<HistoryMessage, { role: "tool" }>,
  images: NonNullable<Extract<HistoryMessage, { role: "tool" }>["images"]>,
  imageInput: boolean,
): LanguageModelV3ToolResultPart["output"] {
  if (images.length === 0 || message.isError) {
    return { type: message.isError ? "error-text" : "text", value: message.content };
  }
  if (!imageInput) {
    // Chat Completions has no image parts in tool messages: say so instead of inlining base64.
    const note =
      "\n[The image is not shown: this model's API does not take images in tool results.]";
    return { type: "text", value: message.content + note };
  }
  return {
    type: "content",
    value: [
      { type: "text", text: message.content },
      ...images.map((image) => ({
        type: "image-data" as const,
        data: image.data,
        mediaType: image.mimeType,
      })),
    ],
  };
}

function optionsOf(
  metadata: ProviderMetadata | undefined,
  replayFilter: ReplayFilter,
): { providerOptions?: SharedV3ProviderOptions } {
  return metadata === undefined ? {} : { providerOptions: replayFilter(metadata) };
}

/** Converts tool specifications into the AI SDK's function tools. */
export function toFunctionTools(
  tools: readonly ToolSpecification[],
): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

/** Removes Responses API item ids from replayed provider data (see {@link ReplayFilter}). */
export const withoutOpenAiItemIds: ReplayFilter = (metadata) => {
  const openai = metadata.openai;
  if (openai === undefined) {
    return metadata;
  }
  const { itemId: _itemId, ...rest }: JsonObject = openai;
  return { ...metadata, openai: rest };
};
