import type { SseEvent } from "./fake-model-types.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * The non-streaming body of a reply (the request had no `stream: true`), built from the same
 * reply's SSE events so both kinds carry the same content: the Responses API's body is its
 * final event's `response`; Anthropic's is `message_start`'s message with every content block
 * completed from its deltas and `message_delta`'s stop reason and output tokens.
 */
export function wholeReply(wire: "openai-responses" | "anthropic", events: SseEvent[]): JsonObject {
  const parsed = events.map((event) => JSON.parse(event.data) as JsonObject);
  if (wire === "openai-responses") {
    return (parsed.at(-1)?.response ?? {}) as JsonObject;
  }
  const start = parsed.find((event) => event.type === "message_start");
  const message = { ...((start?.message ?? {}) as JsonObject) };
  const blocks: JsonObject[] = [];
  const partialJson = new Map<number, string>();
  for (const event of parsed) {
    const index = typeof event.index === "number" ? event.index : -1;
    if (event.type === "content_block_start") {
      blocks[index] = { ...(event.content_block as JsonObject) };
    } else if (event.type === "content_block_delta") {
      applyDelta(blocks[index], event.delta as JsonObject, index, partialJson);
    } else if (event.type === "message_delta") {
      const delta = event.delta as JsonObject;
      message.stop_reason = delta.stop_reason ?? null;
      const usage = event.usage as JsonObject;
      message.usage = { ...(message.usage as JsonObject), output_tokens: usage.output_tokens ?? 0 };
    }
  }
  for (const [index, text] of partialJson) {
    const block = blocks[index];
    if (block !== undefined) {
      block.input = text === "" ? {} : (JSON.parse(text) as JsonValue);
    }
  }
  message.content = blocks.filter((block) => block !== undefined);
  return message;
}

function applyDelta(
  block: JsonObject | undefined,
  delta: JsonObject,
  index: number,
  partialJson: Map<number, string>,
): void {
  if (block === undefined) {
    return;
  }
  switch (delta.type) {
    case "text_delta":
      block.text = `${String(block.text ?? "")}${String(delta.text)}`;
      return;
    case "thinking_delta":
      block.thinking = `${String(block.thinking ?? "")}${String(delta.thinking)}`;
      return;
    case "signature_delta":
      block.signature = String(delta.signature);
      return;
    case "input_json_delta":
      partialJson.set(index, `${partialJson.get(index) ?? ""}${String(delta.partial_json)}`);
      return;
    default:
      return;
  }
}
