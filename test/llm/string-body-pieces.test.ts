/**
 * The Anthropic and Responses wires' request body, a string the AI SDK makes whole, goes to the
 * model as UTF-8 pieces of at most 96 KiB (src/llm/request-body.ts `bodyOf`), not as one new
 * block of the body's size (freeing such a block raises glibc's mmap threshold, bench/notes/
 * mem42.md): the model receives the SDK's own bytes, and no piece handed to the socket is as
 * large as glibc's first threshold.
 */

import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { expect, onTestFinished, test } from "vitest";
import { withHugeBodies } from "../../src/llm/huge-messages.js";
import { withStoredReplies } from "../../src/llm/stored-replies.js";

/** glibc's first mmap threshold: a block this large or larger is mapped, and freeing it moves it. */
const MMAP_THRESHOLD = 128 * 1024;

/**
 * A local model that keeps each request body's bytes and refuses it (a 400: the SDK's request is
 * all this test reads); its base URL.
 */
async function startModel(received: Buffer[]): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(Buffer.concat(chunks));
      response.writeHead(400, { "content-type": "application/json" });
      response.end('{"type":"error","error":{"type":"invalid_request_error","message":"no"}}');
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** The largest piece of bytes any new client socket is given to write, from now until the test ends. */
function largestSocketWrite(): () => number {
  let largest = 0;
  // The headers come as a string, the body as bytes.
  const note = (chunk: string | Uint8Array) => {
    largest = Math.max(largest, Buffer.byteLength(chunk));
  };
  const onSocket = ({ socket }: { socket: Socket }) => {
    const writable = socket as unknown as {
      _write: (chunk: string | Uint8Array, ...rest: unknown[]) => void;
      _writev: (chunks: Array<{ chunk: string | Uint8Array }>, ...rest: unknown[]) => void;
    };
    const write = writable._write;
    const writev = writable._writev;
    writable._write = function (chunk, ...rest) {
      note(chunk);
      return write.call(this, chunk, ...rest);
    };
    writable._writev = function (chunks, ...rest) {
      for (const { chunk } of chunks) {
        note(chunk);
      }
      return writev.call(this, chunks, ...rest);
    };
  };
  subscribe("net.client.socket", onSocket as (message: unknown) => void);
  onTestFinished(() => {
    unsubscribe("net.client.socket", onSocket as (message: unknown) => void);
  });
  return () => largest;
}

/**
 * A user message of about 200,000 UTF-16 code units (about 400 KB of UTF-8): é, an emoji (a
 * surrogate pair, 3 code units a repeat, so piece boundaries fall at every place in it), a quote
 * and a backslash JSON escapes.
 */
const LONG_TEXT = `"begin" ${"é🙂".repeat(33_000)}\\${"🙂é".repeat(33_000)} end`;

const WIRES: Array<[string, (baseURL: string, fetch: typeof globalThis.fetch) => LanguageModelV3]> =
  [
    ["anthropic", (baseURL, fetch) => createAnthropic({ baseURL, apiKey: "k", fetch })("claude-x")],
    [
      "openai (Responses)",
      (baseURL, fetch) => createOpenAI({ baseURL, apiKey: "k", fetch }).responses("gpt-x"),
    ],
  ];

test.each(WIRES)(
  "%s: a long body reaches the model as the SDK's bytes, in pieces under 128 KiB",
  async (_wire, modelOf) => {
    const received: Buffer[] = [];
    const baseURL = await startModel(received);
    const largest = largestSocketWrite();
    const sent: string[] = [];
    // The wire's fetch as src/llm/models.ts builds it, and outside it a spy that keeps the SDK's body.
    const wired = withHugeBodies(withStoredReplies());
    const model = modelOf(baseURL, (input, init) => {
      sent.push(init?.body as string);
      return wired(input, init);
    });
    const prompt = [
      { role: "user" as const, content: [{ type: "text" as const, text: LONG_TEXT }] },
    ];
    const failure = await model.doStream({ prompt }).then(
      () => "answered",
      (error: Error) => error.message,
    );
    const expected = Buffer.from(sent[0] ?? "");
    expect({
      failure,
      requests: received.length,
      bodyIsString: typeof sent[0],
      sameBytes: received[0]?.equals(expected),
      bodyOver390KB: expected.byteLength > 390_000,
      largestWriteUnderThreshold: largest() < MMAP_THRESHOLD,
    }).toEqual({
      failure: "no",
      requests: 1,
      bodyIsString: "string",
      sameBytes: true,
      bodyOver390KB: true,
      largestWriteUnderThreshold: true,
    });
  },
);
