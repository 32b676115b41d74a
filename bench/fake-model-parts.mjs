/**
 * Pieces of the benchmarks' fake model (fake-model.mjs) that are not its script: the whole
 * (non-streaming) reply, the time to first token, and the request/answer channel to a fake model
 * in a worker or process.
 */

/**
 * Answers with one `chat.completion` JSON body: `whole`'s message and finish reason, and the usage
 * of `usageFrame` (the streamed usage chunk, `data: {…}`).
 * @param {import("node:http").ServerResponse} response
 * @param {object} envelope `id`, `object`, `created`, `model`.
 * @param {{message: object, finishReason: string}} whole
 * @param {string} usageFrame
 */
export function sendWholeCompletion(response, envelope, whole, usageFrame) {
  const { usage } = JSON.parse(usageFrame.slice("data: ".length));
  const choice = {
    index: 0,
    message: { role: "assistant", ...whole.message },
    logprobs: null,
    finish_reason: whole.finishReason,
  };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ ...envelope, choices: [choice], usage }));
}

/**
 * Request/answer over a message channel: `ask(type)` sends `{id, type}` and resolves with the
 * answer carrying the same id; a failure of the far side rejects every open question.
 * @param {(message: object) => void} send
 * @param {(handler: (message: any) => void) => void} onMessage
 * @param {(handler: (error: Error) => void) => void} onFailure
 * @returns {(type: string) => Promise<any>}
 */
export function messenger(send, onMessage, onFailure) {
  let nextId = 0;
  const pending = new Map();
  onMessage((message) => {
    const waiting = pending.get(message.id);
    if (waiting !== undefined) {
      pending.delete(message.id);
      waiting.resolve(message);
    }
  });
  onFailure((error) => {
    for (const waiting of pending.values()) {
      waiting.reject(error);
    }
    pending.clear();
  });
  return (type) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, type });
    });
}

/**
 * Waits the `index`-th request's time to first token: `low` plus the fractional part of
 * `index` × the golden ratio times `high - low` (so consecutive requests' waits cover the range
 * evenly, the same in every run).
 * @param {number} index @param {[number, number]} range `[low, high]` ms
 */
export async function firstTokenWait(index, [low, high]) {
  const wait = low + ((index * 0.6180339887498949) % 1) * (high - low);
  if (wait > 0) {
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
