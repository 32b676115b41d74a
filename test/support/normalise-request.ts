import type { FakeModelServer, Wire } from "./fake-model-types.js";
import {
  arrayField,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  objectField,
  stringField,
} from "./json.js";

export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One history message in OpenAI-chat shape, whatever wire the request used. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: ChatToolCall[];
  toolCallId?: string;
}

/**
 * Turns a request body of any wire into chat-style messages. Consecutive assistant messages are
 * merged, because one model reply is one assistant message in chat form but several items
 * (message, function_call …) on the Responses wire.
 */
export function normaliseMessages(wire: Wire, body: JsonValue): ChatMessage[] {
  if (!isJsonObject(body)) {
    return [];
  }
  switch (wire) {
    case "openai-chat":
      return mergeAssistants(arrayField(body, "messages").flatMap(chatMessage));
    case "anthropic":
      return mergeAssistants(arrayField(body, "messages").flatMap(anthropicMessage));
    case "openai-responses": {
      const input = body.input;
      if (typeof input === "string") {
        return [{ role: "user", content: input }];
      }
      return mergeAssistants(arrayField(body, "input").flatMap(responsesItem));
    }
  }
}

/** The text of a content value: a string, or the text parts of a part array. */
export function textOf(content: JsonValue | undefined): string {
  if (typeof content === "string") {
    return content;
  }
  if (!Array.isArray(content)) {
    return "";
  }
  return content
    .map((part) => (isJsonObject(part) ? (stringField(part, "text") ?? "") : ""))
    .join("");
}

/** A message's role (OpenAI's `developer` read as `system`) and its text. */
function roleAndText(message: JsonObject): { role: string | undefined; content: string } {
  const role = stringField(message, "role");
  return { role: role === "developer" ? "system" : role, content: textOf(message.content) };
}

function chatMessage(message: JsonValue): ChatMessage[] {
  if (!isJsonObject(message)) {
    return [];
  }
  const { role, content } = roleAndText(message);
  if (role === "system") {
    return [{ role: "system", content }];
  }
  if (role === "tool") {
    return [{ role: "tool", content, toolCallId: stringField(message, "tool_call_id") ?? "" }];
  }
  if (role === "assistant") {
    const toolCalls = arrayField(message, "tool_calls").flatMap((call): ChatToolCall[] => {
      const callFunction = isJsonObject(call) ? objectField(call, "function") : undefined;
      if (!isJsonObject(call) || callFunction === undefined) {
        return [];
      }
      return [
        {
          id: stringField(call, "id") ?? "",
          name: stringField(callFunction, "name") ?? "",
          arguments: stringField(callFunction, "arguments") ?? "",
        },
      ];
    });
    return [{ role: "assistant", content, toolCalls }];
  }
  return [{ role: "user", content }];
}

function anthropicMessage(message: JsonValue): ChatMessage[] {
  if (!isJsonObject(message)) {
    return [];
  }
  const content = message.content;
  const blocks: JsonObject[] =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : (Array.isArray(content) ? content : []).filter(isJsonObject);
  if (stringField(message, "role") === "assistant") {
    const toolCalls = blocks
      .filter((block) => block.type === "tool_use")
      .map((block) => ({
        id: stringField(block, "id") ?? "",
        name: stringField(block, "name") ?? "",
        arguments: JSON.stringify(block.input ?? {}),
      }));
    return [{ role: "assistant", content: textOfBlocks(blocks), toolCalls }];
  }
  const results: ChatMessage[] = blocks
    .filter((block) => block.type === "tool_result")
    .map((block) => ({
      role: "tool",
      content: textOf(block.content),
      toolCallId: stringField(block, "tool_use_id") ?? "",
    }));
  const text = textOfBlocks(blocks);
  return text === "" ? results : [...results, { role: "user", content: text }];
}

function textOfBlocks(blocks: JsonObject[]): string {
  return blocks
    .filter((block) => block.type === "text")
    .map((block) => stringField(block, "text") ?? "")
    .join("");
}

function responsesItem(item: JsonValue): ChatMessage[] {
  if (!isJsonObject(item)) {
    return [];
  }
  const type = stringField(item, "type") ?? "message";
  if (type === "function_call") {
    const call = {
      id: stringField(item, "call_id") ?? "",
      name: stringField(item, "name") ?? "",
      arguments: stringField(item, "arguments") ?? "",
    };
    return [{ role: "assistant", content: "", toolCalls: [call] }];
  }
  if (type === "function_call_output") {
    const output = item.output;
    return [
      { role: "tool", content: textOf(output), toolCallId: stringField(item, "call_id") ?? "" },
    ];
  }
  if (type === "item_reference") {
    // With `store` on, the SDK replays earlier assistant text and reasoning as references to
    // items the server keeps; they stand for assistant output whose text we do not know.
    return [{ role: "assistant", content: "", toolCalls: [] }];
  }
  if (type !== "message") {
    // reasoning items carry nothing a chat-shaped history shows
    return [];
  }
  const { role, content } = roleAndText(item);
  if (role === "system") {
    return [{ role: "system", content }];
  }
  if (role === "assistant") {
    return [{ role: "assistant", content, toolCalls: [] }];
  }
  return [{ role: "user", content }];
}

/** Merges consecutive assistant messages into one (text concatenated, tool calls in order). */
export function mergeAssistants(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (message.role === "assistant" && previous?.role === "assistant") {
      merged[merged.length - 1] = {
        role: "assistant",
        content: previous.content + message.content,
        toolCalls: [...(previous.toolCalls ?? []), ...(message.toolCalls ?? [])],
      };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

/**
 * The `messages` of the fake server's request `index` (OpenAI Chat wire; negative counts from the
 * end). @throws when that request has none.
 */
export function requestMessages(
  server: FakeModelServer,
  index: number,
): Array<Record<string, unknown>> {
  const body = server.requests.at(index)?.body as { messages?: Array<Record<string, unknown>> };
  if (body?.messages === undefined) {
    throw new Error(`request ${index} has no messages`);
  }
  return body.messages;
}
