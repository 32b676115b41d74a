import { httpExchange } from "./http-fetch.js";
import type { HeaderList } from "./http-headers.js";
import type { BodyMap, HttpResponse } from "./http-response.js";
import { sendingBodyPieces } from "./request-body.js";
import { sseEventBytes } from "./sse-event-transform.js";

/**
 * A `fetch` for OpenAI Chat Completions that evens out what OpenAI-compatible servers (Ollama,
 * vLLM, llama.cpp, gateways, Azure, the Copilot API) send differently, before the AI SDK parses it
 * (the SDK reads only `choices[0]`):
 * - stream chunks without `choices`, or with `choices: null` (keep-alives, usage-only chunks;
 *   case 15), get `choices: []`, which the SDK's chunk schema requires;
 * - one reply split across several `choices[]` (the Copilot API puts the text and each tool call
 *   in a choice of its own) is merged into choice 0, streamed or not: text joined, every tool
 *   call kept, finish reason `tool_calls` when any choice has calls (see {@link mergeChoices}).
 * Everything else passes through untouched. Its request goes out as `httpFetch`'s does, a body of
 * pieces included (request-body.ts).
 */
export const openAiChatQuirksFetch: typeof fetch = sendingBodyPieces(async (input, init) => {
  const response = await httpExchange(input, init, { bodyMap: normalisedEvents });
  const contentType = response.headers.get("content-type") ?? "";
  return contentType.includes("application/json") && response.ok
    ? (await mergedCompletion(response)).asResponse()
    : response.asResponse();
});

/**
 * A successful event stream's chunks normalised as they arrive, inside the body stream itself
 * (http-response.ts, `bodyStream`): a `TransformStream` piped after it was one more web stream
 * stage per model request (bench/notes/server.md, session 14).
 */
function normalisedEvents(status: number, headers: HeaderList): BodyMap | undefined {
  const ok = status >= 200 && status <= 299;
  return ok && (headers.get("content-type") ?? "").includes("text/event-stream")
    ? sseEventBytes(createChunkNormaliser())
    : undefined;
}

/**
 * Returns a mapper of chunk JSON text. Only chunks without `choices` (or `null`) or that carry a
 * choice other than 0 are parsed and rewritten; the AI SDK already keeps parallel tool calls
 * apart when servers reuse `index: 0` (case 09, covered by tests), so that needs nothing here.
 */
function createChunkNormaliser(): (data: string) => string {
  let sawToolCall = false;
  return (data) => {
    if (data === "[DONE]") {
      return data;
    }
    const plain = data.includes('"choices":[') && !/"index":\s*[1-9]/.test(data);
    if (plain && !(sawToolCall && data.includes('"finish_reason":"stop"'))) {
      if (!sawToolCall && data.includes('"tool_calls"')) {
        sawToolCall = true;
      }
      return data;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) {
      return data;
    }
    const record = chunk as { choices?: unknown; error?: unknown };
    if (record.error !== undefined) {
      return data;
    }
    if (record.choices === undefined || record.choices === null) {
      return JSON.stringify({ ...record, choices: [] });
    }
    if (!Array.isArray(record.choices)) {
      // Not a keep-alive but a malformed chunk (`choices: {}`): the SDK's schema rejects it as
      // it is, and errors.ts reports it once, without a retry.
      return data;
    }
    const choices = record.choices.filter(isRecord);
    sawToolCall ||= choices.some((choice) => isRecord(choice.delta) && choice.delta.tool_calls);
    if (choices.length === 0) {
      return data;
    }
    return JSON.stringify({ ...record, choices: [mergeChoices(choices, "delta", sawToolCall)] });
  };
}

/** A non-streaming completion with its `choices[]` merged into one. */
async function mergedCompletion(response: HttpResponse): Promise<HttpResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const choices = isRecord(body) && Array.isArray(body.choices) ? body.choices : [];
  const merged =
    isRecord(body) && choices.length > 1
      ? JSON.stringify({ ...body, choices: [mergeChoices(choices.filter(isRecord), "message")] })
      : text;
  return response.withBody(merged);
}

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Several choices of one reply as choice 0: their `content` joined in choice order, their tool
 * calls all kept (choice k's call j gets index `100·k + j`, so calls of different choices never
 * share an index), and finish reason `tool_calls` when the reply has any tool call (`hasToolCalls`:
 * also one seen earlier in the stream), so a text choice that ends `stop` does not hide them.
 */
function mergeChoices(
  choices: JsonRecord[],
  field: "delta" | "message",
  hasToolCalls = false,
): JsonRecord {
  const ordered = [...choices].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  const parts = ordered.map((choice) => ({
    index: Number(choice.index ?? 0),
    body: isRecord(choice[field]) ? (choice[field] as JsonRecord) : {},
    finish: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
  }));
  const content = parts
    .map((part) => part.body.content)
    .filter((value): value is string => typeof value === "string");
  const toolCalls = parts.flatMap((part) =>
    (Array.isArray(part.body.tool_calls) ? part.body.tool_calls : [])
      .filter(isRecord)
      .map((call, position) => ({
        ...call,
        index: part.index * 100 + Number(call.index ?? position),
      })),
  );
  const finishes = parts.map((part) => part.finish).filter((value) => value !== null);
  const anyCalls = hasToolCalls || toolCalls.length > 0;
  const finish =
    finishes.length === 0
      ? null
      : anyCalls && finishes.includes("stop")
        ? "tool_calls"
        : finishes[0];
  const merged: JsonRecord = { ...parts[0]?.body };
  if (content.length > 0) {
    merged.content = content.join("");
  }
  if (toolCalls.length > 0) {
    merged.tool_calls =
      field === "message" ? toolCalls.map(({ index: _index, ...call }) => call) : toolCalls;
  } else {
    delete merged.tool_calls;
  }
  if (field === "message" && merged.role === undefined) {
    merged.role = "assistant";
  }
  return { ...ordered[0], index: 0, [field]: merged, finish_reason: finish };
}
