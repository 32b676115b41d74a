import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { JsonObject, ProviderMetadata } from "../events/events.js";
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
 * message so Anthropic gets them as the leading blocks of one user turn (case 11).
 */
export function toPrompt(
  system: string,
  history: readonly HistoryMessage[],
  replayFilter: ReplayFilter = keepAll,
  toolResultImages = false,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: "system", content: system }];
  for (const message of history) {
    const converted = convertMessage(message, replayFilter, toolResultImages);
    if (converted === undefined) {
      continue;
    }
    const previous = prompt.at(-1);
    if (converted.role === "tool" && previous?.role === "tool") {
      previous.content.push(...converted.content);
    } else {
      prompt.push(converted);
    }
  }
  return prompt;
}

function convertMessage(
  message: HistoryMessage,
  replayFilter: ReplayFilter,
  toolResultImages: boolean,
): LanguageModelV3Message | undefined {
  switch (message.role) {
    case "user":
      return { role: "user", content: [{ type: "text", text: message.content }] };
    case "tool": {
      const images = message.images ?? [];
      const part: LanguageModelV3ToolResultPart = {
        type: "tool-result",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: toolOutput(message, images, toolResultImages),
      };
      return { role: "tool", content: [part] };
    }
    case "assistant": {
      const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
      for (const reasoning of message.reasoningParts ?? []) {
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

function toolOutput(
  message: Extract<HistoryMessage, { role: "tool" }>,
  images: NonNullable<Extract<HistoryMessage, { role: "tool" }>["images"]>,
  toolResultImages: boolean,
): LanguageModelV3ToolResultPart["output"] {
  if (images.length === 0 || message.isError) {
    return { type: message.isError ? "error-text" : "text", value: message.content };
  }
  if (!toolResultImages) {
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
