import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, onTestFinished, test } from "vitest";
import { httpExchange } from "../../src/llm/http-fetch.js";
import type { BodyMap } from "../../src/llm/http-response.js";
import { openAiChatQuirksFetch } from "../../src/llm/openai-chat-quirks.js";

// Round 3, session 14 (issue 26, figure 7d): a fetch that rewrites a body as it arrives does it
// inside the body's own stream (`bodyMap`), not in a `TransformStream` piped after it, one web
// stream stage less per model request.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/**
 * A server answering `status` with `parts` written one by one, each after the client asked for
 * it (`next()`), so every part is a socket read of its own.
 */
async function servePieces(status: number, contentType: string, parts: string[]) {
  let response: ServerResponse | undefined;
  let answered: () => void = () => undefined;
  const answering = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const server = createServer((_request, each) => {
    response = each;
    each.writeHead(status, { "content-type": contentType });
    each.flushHeaders();
    answered();
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  const next = async () => {
    await answering;
    const part = parts.shift();
    if (part === undefined) {
      response?.end();
    } else {
      response?.write(part);
    }
  };
  return { url, next };
}

/** Reads `body` to its end, asking the server for its next part before each read. */
async function readAll(body: ReadableStream<Uint8Array> | null, next: () => Promise<void>) {
  if (body === null) {
    throw new Error("no body");
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const reads: string[] = [];
  for (;;) {
    await next();
    const { done, value } = await reader.read();
    if (done) {
      return reads;
    }
    reads.push(decoder.decode(value));
  }
}

/** Upper-cases what it is given, and says "end" at the end. */
function upperCase(): BodyMap {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  return {
    take: (bytes) => encoder.encode(decoder.decode(bytes).toUpperCase()),
    end: () => encoder.encode("end"),
  };
}

test("a body map rewrites each read of the body and adds what it has left at the end", async () => {
  const { url, next } = await servePieces(200, "text/plain", ["one ", "two"]);
  const seen: number[] = [];
  const response = await httpExchange(url, undefined, {
    bodyMap: (status) => {
      seen.push(status);
      return upperCase();
    },
  });
  expect(seen).toEqual([200]);
  expect(await readAll(response.body, next)).toEqual(["ONE ", "TWO", "end"]);
});

test("a body map that declines (undefined) leaves the body as it came", async () => {
  const { url, next } = await servePieces(500, "text/plain", ["failed"]);
  const response = await httpExchange(url, undefined, {
    bodyMap: (status) => (status === 200 ? upperCase() : undefined),
  });
  expect(response.status).toBe(500);
  expect(await readAll(response.body, next)).toEqual(["failed"]);
});

test("the OpenAI Chat fetch normalises an event stream inside its body, with no TransformStream of its own", async () => {
  const Original = globalThis.TransformStream;
  let made = 0;
  globalThis.TransformStream = class Counted<I, O> extends Original<I, O> {
    constructor(...args: ConstructorParameters<typeof TransformStream<I, O>>) {
      super(...args);
      made += 1;
    }
  };
  onTestFinished(() => {
    globalThis.TransformStream = Original;
  });
  const { url, next } = await servePieces(200, "text/event-stream", [
    'data: {"id":"1","usage":{"prompt_tokens":1}}\n\ndata: {"id":"2","cho',
    'ices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
    "data: [DONE]\n\n",
  ]);
  const response = await openAiChatQuirksFetch(url, { method: "POST", body: "{}" });
  const reads = await readAll(response.body, next);
  expect(reads.join("")).toBe(
    'data: {"id":"1","usage":{"prompt_tokens":1},"choices":[]}\n\n' +
      'data: {"id":"2","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n' +
      "data: [DONE]\n\n",
  );
  expect(made).toBe(0);
});
