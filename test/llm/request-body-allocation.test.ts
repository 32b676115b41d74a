/**
 * Issue 26, figure 3 (3d, and the growth of a turn's cost with the history): an OpenAI-compatible
 * model's earlier wire messages are serialised once (src/llm/sync-chunk-validation.ts), and their
 * JSON reaches the body as the UTF-8 bytes it was encoded to once (src/llm/encoded-json.ts), not
 * joined with the rest of the body into a new string, then encoded again, at every request: the
 * join alone was about 13 KiB of a bench tool turn's heap at turn 20 and 69 KiB at turn 180
 * (bench/notes/turn41.md). Its own file, so that no other test has made the fetch's code hot
 * first.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { expect, onTestFinished, test } from "vitest";
import { History } from "../../src/agent/history.js";
import { toPrompt } from "../../src/llm/convert.js";
import { httpFetch } from "../../src/llm/http-fetch.js";
import { collectGarbage, withHugeBodies } from "../../src/llm/huge-messages.js";
import { sendingBodyPieces } from "../../src/llm/request-body.js";
import { withKeptMessages } from "../../src/llm/sync-chunk-validation.js";
import { buildEvents } from "../session/support.js";
import { bytesAllocatedIn } from "../support/heap-sampling.js";
import { compatibleModel } from "./helpers.js";

/** The SDK's chat model with the method that builds a request's fields (its own, private). */
type ChatModel = LanguageModelV3 & {
  getArgs(options: LanguageModelV3CallOptions): Promise<{ args: Record<string, unknown> }>;
};

/**
 * A turn calling `view`, whose result holds characters JSON escapes or UTF-8 takes several bytes
 * for (é, an emoji) and a lone surrogate (`JSON.stringify` escapes it): about 2 KB of JSON.
 */
function toolTurn(turn: number): ReturnType<typeof buildEvents> {
  const toolCallId = `call_${turn}`;
  const content = `notes ${turn} "quoted"\n${"é🙂 \ud800 line\\".repeat(100)}`;
  return buildEvents([
    { type: "assistant.turn_start", data: { turnId: String(turn) } },
    {
      type: "assistant.message",
      data: {
        messageId: `m${turn}`,
        content: `looking ${turn}`,
        toolRequests: [{ toolCallId, name: "view", arguments: { path: `notes-${turn}.md` } }],
        finishReason: "tool-calls",
      },
    },
    {
      type: "tool.execution_complete",
      data: { toolCallId, toolName: "view", success: true, result: { content } },
    },
    { type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } },
  ]);
}

/**
 * An OpenAI-compatible model with turnloop's kept messages (sync-chunk-validation.ts) whose fetch
 * is `fetch`, and its history after a prompt; `next(turn)` adds {@link toolTurn}`(turn)` to it
 * and returns the request's body text, as the SDK makes it, and its abort signal.
 */
function turnRequests(fetch: typeof globalThis.fetch, baseURL: string) {
  const settings = { name: "openai-compatible", baseURL, apiKey: "unused", includeUsage: true };
  const model = withKeptMessages(
    createOpenAICompatible({ ...settings, fetch }).chatModel("fake-model"),
  ) as ChatModel;
  const history = new History();
  for (const event of buildEvents([
    { type: "user.message", data: { content: "read the notes", source: "user" } },
  ])) {
    history.apply(event);
  }
  const next = async (turn: number) => {
    for (const event of toolTurn(turn)) {
      history.apply(event);
    }
    const signal = new AbortController().signal;
    const prompt = toPrompt("system", history.messages);
    const { args } = await model.getArgs({ prompt, abortSignal: signal });
    return { body: JSON.stringify({ ...args, stream: true }), signal };
  };
  return { history, next };
}

test("a long history's body is put together from bytes kept, with no copy of it on the heap", async () => {
  const sent: Array<string | Uint8Array> = [];
  const answer = new Response("");
  // turnloop's fetch wrapper (models.ts) around a fetch that only keeps the body it is given.
  const fetch = withHugeBodies(async (_input, init) => {
    sent.push(init?.body as string | Uint8Array);
    return answer;
  });
  const baseURL = "http://127.0.0.1:9/v1";
  const { history, next } = turnRequests(fetch, baseURL);
  const url = `${baseURL}/chat/completions`;
  /** Turn `turn`'s request, as the SDK makes it: its fields, then its body's text to the fetch. */
  const request = async (turn: number) => {
    const { body, signal } = await next(turn);
    return () => void fetch(url, { method: "POST", body, signal });
  };
  // 99 turns sent before (their fetch's code made hot), then the 100th measured.
  for (let turn = 1; turn < 100; turn++) {
    (await request(turn))();
  }
  const last = await request(100);
  const bytes = await bytesAllocatedIn("wrapped", last);
  const { args } = await (compatibleModel(baseURL) as ChatModel).getArgs({
    prompt: toPrompt("system", history.messages),
  });
  const expected = Buffer.from(JSON.stringify({ ...args, stream: true }));
  const body = Buffer.from(sent.at(-1) ?? "");
  // The history's JSON is about 200 KB, a two-byte string once joined: the old code read
  // 389,792 bytes under the wrapper, this 2,904: the wrapper's own (its promise, the body's
  // pieces, the few small texts around the kept JSON encoded).
  expect({
    requests: sent.length,
    sameBytes: body.equals(expected),
    bodyOver190KB: body.byteLength > 190_000,
    under8KiB: bytes < 8 * 1024,
  }).toEqual({ requests: 100, sameBytes: true, bodyOver190KB: true, under8KiB: true });
});

test("a long history's body goes to the model as the bytes kept, with no new block of its size", async () => {
  // A fake model that keeps the bytes it receives.
  const received: Buffer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(Buffer.concat(chunks));
      response.end("");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  // Array-buffer memory allocated between the call of turnloop's fetch wrapper (models.ts) and
  // `httpFetch`'s, by a wrapper that hands the body on unchanged, as models.ts' wrappers do.
  let before = 0;
  const grown: number[] = [];
  const fetch = withHugeBodies(
    sendingBodyPieces((input, init) => {
      grown.push(process.memoryUsage().arrayBuffers - before);
      return httpFetch(input, init);
    }),
  );
  const { history, next } = turnRequests(fetch, baseURL);
  for (let turn = 1; turn <= 100; turn++) {
    const { body, signal } = await next(turn);
    if (turn > 90) {
      // The 10 turns read below: nothing left to collect, so no collection can hide a block
      // made inside the wrapper (a full collection a turn for all 100 cost seconds).
      collectGarbage();
    }
    before = process.memoryUsage().arrayBuffers;
    await (await fetch(`${baseURL}/chat/completions`, { method: "POST", body, signal })).text();
  }
  const { args } = await (compatibleModel(baseURL) as ChatModel).getArgs({
    prompt: toPrompt("system", history.messages),
  });
  const expected = Buffer.from(JSON.stringify({ ...args, stream: true }));
  // The old code joined the body into one new array: grown by the body's size (about 200 KB at
  // turn 100); the few texts around the kept JSON, encoded, take a slab of Buffer's pool at most.
  expect({
    requests: received.length,
    sameBytes: received.at(-1)?.equals(expected),
    bodyOver190KB: expected.byteLength > 190_000,
    grownOver16KiB: grown.slice(-10).filter((bytes) => bytes > 16 * 1024),
  }).toEqual({ requests: 100, sameBytes: true, bodyOver190KB: true, grownOver16KiB: [] });
});
