/**
 * A server speaking another wire than the model's prefix (trial 41, F5), for
 * test/llm/wire-mismatch.test.ts and test/cli/wire-mismatch.test.ts: the first events of a reply
 * on each wire, how the error names what the server sent, and the prefix that speaks each wire.
 */

/** The first events of a reply on each wire, as its servers send them. */
export const STREAMS = {
  chat: [
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
    "data: [DONE]\n\n",
  ],
  responses: [
    `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_1", object: "response", created_at: 1, status: "in_progress", model: "m", output: [] } })}\n\n`,
  ],
  anthropic: [
    `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
    `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
  ],
} as const;

/** How the error names what each wire's server sent. */
const SAID = {
  chat: "OpenAI Chat Completions chunks",
  responses: "OpenAI Responses API events",
  anthropic: "Anthropic Messages API events",
} as const;

/** The model prefix that speaks each wire. */
const PREFIX_OF = { chat: "openai-compatible", responses: "openai", anthropic: "anthropic" };

/** A wire of {@link STREAMS}. */
export type ServedWire = keyof typeof STREAMS;

/**
 * The error a model of `modelId` (its prefix speaking `speaks`) gets from a server of `served`:
 * after one request, not retried.
 */
export function mismatchMessage(modelId: string, served: ServedWire, speaks: string): string {
  const prefix = modelId.split(":")[0];
  return `the server answered with ${SAID[served]}, but ${prefix}: speaks ${speaks}; for this server use --model ${PREFIX_OF[served]}:gpt-4o-mini`;
}
