import type { Wire } from "./fake-model-types.js";
import {
  arrayField,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parsesToJsonObject,
  stringField,
} from "./json.js";
import { textOf } from "./normalise-request.js";

/** A request a strict provider would reject: the HTTP status and body it answers with. */
export interface ValidationFailure {
  status: number;
  message: string;
  body: JsonObject;
}

export interface ValidationOptions {
  rejectStreamOptions?: boolean;
  requireReasoningPassback?: boolean;
  requireEncryptedReasoningInclude?: boolean;
  /** reasoning text the server streamed, keyed by each tool call id of that reply */
  streamedReasoning: ReadonlyMap<string, string>;
}

/**
 * Checks a request the way the real providers do, so that a history the agent corrupted (an
 * unanswered tool call, cut-off arguments, an empty assistant message) fails the test loudly
 * instead of passing against a lenient fake.
 */
export function validateRequest(
  wire: Wire,
  body: JsonValue,
  options: ValidationOptions,
): ValidationFailure | undefined {
  if (!isJsonObject(body)) {
    return failure(wire, "The request body must be a JSON object.");
  }
  if (options.rejectStreamOptions === true && "stream_options" in body) {
    return failure(wire, "Unrecognized request argument: stream_options");
  }
  const message =
    wire === "openai-chat"
      ? validateChat(arrayField(body, "messages"), options)
      : wire === "anthropic"
        ? validateAnthropic(arrayField(body, "messages"))
        : validateResponses(body, options);
  return message === undefined ? undefined : failure(wire, message);
}

/** A 400 in the wire's own error shape. */
export function failure(wire: Wire, message: string): ValidationFailure {
  const body: JsonObject =
    wire === "anthropic"
      ? { type: "error", error: { type: "invalid_request_error", message } }
      : {
          error: {
            message,
            type: "invalid_request_error",
            param: wire === "openai-responses" ? "input" : null,
            code: null,
          },
        };
  return { status: 400, message, body };
}

function objects(values: JsonValue[]): JsonObject[] {
  return values.filter(isJsonObject);
}

// ---------------------------------------------------------------- OpenAI Chat Completions

function validateChat(values: JsonValue[], options: ValidationOptions): string | undefined {
  const messages = objects(values);
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as JsonObject;
    const role = stringField(message, "role");
    if (role === "tool") {
      return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${index}], tool_call_id ${stringField(message, "tool_call_id")})`;
    }
    if (role !== "assistant") {
      index += 1;
      continue;
    }
    const calls = objects(arrayField(message, "tool_calls"));
    if (calls.length === 0) {
      if (textOf(message.content).trim() === "") {
        return `Invalid 'messages[${index}]': an assistant message must have non-empty content or 'tool_calls'.`;
      }
      index += 1;
      continue;
    }
    const problem =
      checkChatToolCalls(message, index, calls, options) ??
      checkChatResults(messages, index, calls);
    if (problem !== undefined) {
      return problem;
    }
    index += 1;
    while (stringField(messages[index] ?? {}, "role") === "tool") {
      index += 1;
    }
  }
  return undefined;
}

function checkChatToolCalls(
  message: JsonObject,
  index: number,
  calls: JsonObject[],
  options: ValidationOptions,
): string | undefined {
  for (const [callIndex, call] of calls.entries()) {
    const callFunction = call.function;
    const argumentsText = isJsonObject(callFunction)
      ? stringField(callFunction, "arguments")
      : undefined;
    if (argumentsText === undefined || !parsesToJsonObject(argumentsText)) {
      return `Invalid 'messages[${index}].tool_calls[${callIndex}].function.arguments': expected a JSON object, got ${JSON.stringify(argumentsText ?? null)}.`;
    }
  }
  const firstId = stringField(calls[0] ?? {}, "id") ?? "";
  const streamed = options.streamedReasoning.get(firstId);
  if (options.requireReasoningPassback === true && streamed !== undefined && streamed !== "") {
    if (message.reasoning_content !== streamed) {
      return `The \`reasoning_content\` in the thinking mode must be passed back to the API. (messages[${index}])`;
    }
  }
  return undefined;
}

function checkChatResults(
  messages: JsonObject[],
  index: number,
  calls: JsonObject[],
): string | undefined {
  const pending = new Set(calls.map((call) => stringField(call, "id") ?? ""));
  for (let resultIndex = index + 1; resultIndex < messages.length; resultIndex += 1) {
    const result = messages[resultIndex] as JsonObject;
    if (stringField(result, "role") !== "tool") {
      break;
    }
    const id = stringField(result, "tool_call_id") ?? "";
    if (!pending.delete(id)) {
      return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${resultIndex}], tool_call_id ${id} is unknown or answered twice)`;
    }
  }
  if (pending.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`;
  }
  return undefined;
}

// ---------------------------------------------------------------- Anthropic Messages

function blocksOf(message: JsonObject): JsonObject[] {
  const content = message.content;
  return typeof content === "string"
    ? [{ type: "text", text: content }]
    : objects(Array.isArray(content) ? content : []);
}

function validateAnthropic(values: JsonValue[]): string | undefined {
  const messages = objects(values);
  const duplicate = duplicateToolUseId(messages);
  if (duplicate !== undefined) {
    return duplicate;
  }
  // how many leading tool_result blocks of each user message answer the assistant before it
  const answeredPrefix = new Map<number, number>();
  for (const [index, message] of messages.entries()) {
    const blocks = blocksOf(message);
    const problem =
      checkAnthropicContent(blocks, index) ??
      (stringField(message, "role") === "assistant"
        ? checkAnthropicToolUses(messages, index, blocks, answeredPrefix)
        : checkStrayResults(blocks, index, answeredPrefix.get(index) ?? 0));
    if (problem !== undefined) {
      return problem;
    }
  }
  return undefined;
}

/** Anthropic rejects a request in which two `tool_use` blocks share an id, in any messages. */
function duplicateToolUseId(messages: JsonObject[]): string | undefined {
  const seen = new Set<string>();
  for (const [index, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      const id = block.type === "tool_use" ? (stringField(block, "id") ?? "") : undefined;
      if (id !== undefined && seen.has(id)) {
        return `messages.${index}.content.${blockIndex}: \`tool_use\` ids must be unique`;
      }
      if (id !== undefined) {
        seen.add(id);
      }
    }
  }
  return undefined;
}

function checkAnthropicContent(blocks: JsonObject[], index: number): string | undefined {
  if (blocks.length === 0) {
    return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
  }
  for (const [blockIndex, block] of blocks.entries()) {
    if (block.type === "text" && (stringField(block, "text") ?? "").trim() === "") {
      return `messages.${index}.content.${blockIndex}: text content blocks must contain non-whitespace text`;
    }
    if (block.type === "tool_use" && !isJsonObject(block.input)) {
      return `messages.${index}.content.${blockIndex}.tool_use.input: Input should be a valid dictionary`;
    }
  }
  return undefined;
}

function checkAnthropicToolUses(
  messages: JsonObject[],
  index: number,
  blocks: JsonObject[],
  answeredPrefix: Map<number, number>,
): string | undefined {
  const pending = new Set(
    blocks
      .filter((block) => block.type === "tool_use")
      .map((block) => stringField(block, "id") ?? ""),
  );
  if (pending.size === 0) {
    return undefined;
  }
  const next = messages[index + 1];
  const nextBlocks =
    next !== undefined && stringField(next, "role") === "user" ? blocksOf(next) : [];
  let leading = 0;
  while (nextBlocks[leading]?.type === "tool_result") {
    const id = stringField(nextBlocks[leading] as JsonObject, "tool_use_id") ?? "";
    if (!pending.delete(id)) {
      return unexpectedResult(index + 1, leading, id);
    }
    leading += 1;
  }
  answeredPrefix.set(index + 1, leading);
  if (pending.size > 0) {
    return `messages.${index}: tool_use ids were found without tool_result blocks immediately after: ${[...pending].join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

function checkStrayResults(
  blocks: JsonObject[],
  index: number,
  answered: number,
): string | undefined {
  for (const [blockIndex, block] of blocks.entries()) {
    if (blockIndex >= answered && block.type === "tool_result") {
      return unexpectedResult(index, blockIndex, stringField(block, "tool_use_id") ?? "");
    }
  }
  return undefined;
}

function unexpectedResult(index: number, blockIndex: number, id: string): string {
  return `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
}

// ---------------------------------------------------------------- OpenAI Responses

const callOutputTypes: Record<string, string> = {
  function_call_output: "function_call",
  custom_tool_call_output: "custom_tool_call",
};

function validateResponses(body: JsonObject, options: ValidationOptions): string | undefined {
  const stateless = body.store === false;
  const include = arrayField(body, "include");
  if (
    stateless &&
    options.requireEncryptedReasoningInclude === true &&
    !include.includes("reasoning.encrypted_content")
  ) {
    return "With `store` set to false, reasoning can only be replayed when `include` contains 'reasoning.encrypted_content'.";
  }
  // call_id → the call's item type, while it still waits for its output
  const pending = new Map<string, string>();
  const answered = new Set<string>();
  for (const [index, item] of objects(arrayField(body, "input")).entries()) {
    const type = stringField(item, "type") ?? "message";
    const callId = stringField(item, "call_id") ?? "";
    if (type === "function_call" || type === "custom_tool_call") {
      const argumentsText = stringField(item, "arguments");
      if (
        type === "function_call" &&
        (argumentsText === undefined || !parsesToJsonObject(argumentsText))
      ) {
        return `Invalid 'input[${index}].arguments': expected a JSON object, got ${JSON.stringify(argumentsText ?? null)}.`;
      }
      pending.set(callId, type);
    } else if (type in callOutputTypes) {
      if (pending.get(callId) !== callOutputTypes[type]) {
        const again = answered.has(callId) ? " (answered twice)" : "";
        return `No tool call found for ${type.replaceAll("_", " ")} with call_id ${callId}.${again}`;
      }
      pending.delete(callId);
      answered.add(callId);
    } else if (stateless && (type === "reasoning" || type === "item_reference") && "id" in item) {
      return `Item with id '${stringField(item, "id")}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
    } else if (
      type === "message" &&
      stringField(item, "role") === "assistant" &&
      textOf(item.content).trim() === ""
    ) {
      return `Invalid 'input[${index}].content': an assistant message must have non-empty content.`;
    }
  }
  const [unanswered] = pending;
  if (unanswered === undefined) {
    return undefined;
  }
  const [callId, type] = unanswered;
  return `No tool output found for ${type === "custom_tool_call" ? "custom tool call" : "function call"} ${callId}.`;
}
