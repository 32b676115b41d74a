import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { SessionEvent, SessionEventData, SessionEventType } from "../../src/events/events.js";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import type { Harness } from "../support/harness.js";
import type { JsonObject, JsonValue } from "../support/json.js";

/** Resolves at the first event the session emits that satisfies `predicate`. */
export function waitForEvent(
  harness: Harness,
  predicate: (event: SessionEvent) => boolean,
): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const unsubscribe = harness.session.subscribe((event) => {
      if (predicate(event)) {
        unsubscribe();
        resolve(event);
      }
    });
  });
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/**
 * Waits until `condition` holds, checking every 10 ms, for at most `timeoutMs`; returns whether it
 * held. For facts another party records asynchronously (the fake server noticing a closed socket);
 * the limit is generous, for a loaded machine: a condition that holds returns at once.
 */
export async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) {
      return false;
    }
    await sleep(10);
  }
  return true;
}

/** How many events of `type` are in `events` (the `grep -c` of the design's principle). */
export function countOf(events: readonly SessionEvent[], type: SessionEventType): number {
  return events.filter((event) => event.type === type).length;
}

/** The `data` of every event of one type, typed (stored or live; wire-only events too). */
export function dataOf<T extends SessionEventType>(
  events: readonly WireEvent[],
  type: T,
): Array<SessionEventData[T]> {
  return events.flatMap((event) =>
    event.type === type ? [event.data as SessionEventData[T]] : [],
  );
}

/** HTTP statuses the fake server answered, in request order. */
export function statuses(harness: Harness): number[] {
  return harness.server.requests.map((request) => request.status);
}

/** The JSON body of request `index` (negative counts from the end). */
export function requestBody(harness: Harness, index: number): JsonObject {
  const body = harness.server.requests.at(index)?.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Error(`request ${index} has no JSON object body`);
  }
  return body;
}

/** An array field of a JSON object, as objects (request `messages`, `input` …). */
export function objectsIn(object: JsonObject, key: string): JsonObject[] {
  const value: JsonValue | undefined = object[key];
  return Array.isArray(value)
    ? value.filter(
        (item): item is JsonObject =>
          typeof item === "object" && item !== null && !Array.isArray(item),
      )
    : [];
}

/** One OpenAI Chat Completions SSE chunk, framed, with the envelope fields every server sends. */
export function chatChunk(fields: object): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "fake-model", ...fields })}\n\n`;
}

/** A chat chunk with one choice holding `delta`. */
export function chatDelta(delta: object, finishReason: string | null = null): string {
  return chatChunk({ choices: [{ index: 0, delta, finish_reason: finishReason }] });
}

export const CHAT_DONE = "data: [DONE]\n\n";

/** The AI SDK's OpenAI-compatible chat model `fake-model` at `baseUrl`, as the SDK makes it. */
export function compatibleModel(baseUrl: string): LanguageModelV3 {
  return createOpenAICompatible({
    name: "openai-compatible",
    baseURL: baseUrl,
    apiKey: "test-key",
    includeUsage: true,
  }).chatModel("fake-model");
}
