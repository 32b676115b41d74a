/**
 * A non-streaming request answered with an event stream anyway (trial 39, F6): some servers and
 * proxies always stream, and say so in the reply's `content-type: text/event-stream`. The AI SDK's
 * `doGenerate` reads such a body whole and fails on it as not JSON, its `APICallError` holding the
 * whole body; the body is then read again as the stream it is, by the model's own `doStream`,
 * whose fetch hands back that stored body ({@link withStoredReplies}) instead of asking the server
 * a second time. So the AI SDK still reads the wire, and the server is asked once.
 */

import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { httpFetch } from "./http-fetch.js";
import { HeaderList } from "./http-headers.js";
import { HttpResponse } from "./http-response.js";
import { sendingBodyPieces, sendsBodyPieces } from "./request-body.js";

/**
 * Replies already read, by the abort signal of the SDK call that is to read them again (the AI
 * SDK hands the call's `abortSignal` to `fetch` as it is; each model attempt has its own).
 */
const storedReplies = new WeakMap<AbortSignal, HttpResponse>();

/**
 * `fetchFunction` (default `httpFetch`), except for a request whose `signal` has a stored reply
 * ({@link generatedOrStreamed}): that reply is the answer, taken once, and nothing is sent. It
 * sends a request body as `fetchFunction` does, pieces too when that one does (request-body.ts).
 */
export function withStoredReplies(fetchFunction: typeof fetch = httpFetch): typeof fetch {
  const wrapped: typeof fetch = (input, init) => {
    const signal = init?.signal ?? undefined;
    const stored = signal === undefined ? undefined : storedReplies.get(signal);
    if (signal === undefined || stored === undefined) {
      return fetchFunction(input, init);
    }
    storedReplies.delete(signal);
    return Promise.resolve(stored.asResponse());
  };
  return sendsBodyPieces(fetchFunction) ? sendingBodyPieces(wrapped) : wrapped;
}

/** What a non-streaming request gave: the SDK's whole result, or the stream the server sent. */
export type GeneratedOrStreamed =
  | { type: "generated"; result: Awaited<ReturnType<LanguageModelV3["doGenerate"]>> }
  | { type: "streamed"; stream: ReadableStream<LanguageModelV3StreamPart> };

/**
 * `model.doGenerate(call)`; when the server answered it with a successful event stream (status
 * 2xx, `content-type: text/event-stream`), that body read by `model.doStream(call)` as the stream
 * it is, through a fetch of {@link withStoredReplies} (without it, the request would be sent
 * again). Any other failure is thrown as it came.
 * @throws what `doGenerate` or `doStream` throw.
 */
export async function generatedOrStreamed(
  model: LanguageModelV3,
  call: LanguageModelV3CallOptions,
): Promise<GeneratedOrStreamed> {
  try {
    return { type: "generated", result: await model.doGenerate(call) };
  } catch (error) {
    const signal = call.abortSignal;
    const stored = signal === undefined ? undefined : streamedReply(error);
    if (signal === undefined || stored === undefined) {
      throw error;
    }
    storedReplies.set(signal, stored);
    try {
      const { stream } = await model.doStream(call);
      return { type: "streamed", stream };
    } finally {
      storedReplies.delete(signal);
    }
  }
}

/** The event stream a successful reply the SDK could not read as JSON held; else undefined. */
function streamedReply(error: unknown): HttpResponse | undefined {
  if (!APICallError.isInstance(error) || error.responseBody === undefined) {
    return undefined;
  }
  const status = error.statusCode ?? 0;
  const headers = error.responseHeaders ?? {};
  const contentType = headers["content-type"] ?? "";
  if (status < 200 || status > 299 || !/^\s*text\/event-stream\b/i.test(contentType)) {
    return undefined;
  }
  const init = {
    status,
    statusText: "",
    headers: new HeaderList(headers),
    url: error.url,
    redirected: false,
  };
  return new HttpResponse(null, init).withBody(error.responseBody);
}
