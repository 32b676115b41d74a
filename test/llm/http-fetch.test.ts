import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, onTestFinished, test } from "vitest";
import { classifyFailure } from "../../src/llm/errors.js";
import { httpFetch } from "../../src/llm/http-fetch.js";
import { BodyPieces } from "../../src/llm/request-body.js";

// Issue 26: the provider transport over node:http (src/llm/http-fetch.ts), against real local
// HTTP servers. Failures must keep undici's shapes, which src/llm/errors.ts classifies.

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, received: Received) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** A server that reads each request whole, records it, then calls `handler`. */
async function startServer(handler: Handler): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const entry = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(entry);
      handler(request, response, entry);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("resolved, expected a rejection"),
    (error: unknown) => error,
  );
}

/** A web stream of `parts`, each UTF-8 encoded. */
function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) {
        controller.close();
      } else {
        controller.enqueue(encoder.encode(next));
      }
    },
  });
}

describe("httpFetch: requests and responses", () => {
  test("a POST's string body, method and headers arrive; status, headers and JSON come back", async () => {
    const { base, received } = await startServer((_request, response) => {
      response.setHeader("x-request-id", ["one", "two"]);
      response
        .writeHead(201, "Made", { "content-type": "application/json", "content-length": "11" })
        .end('{"ok":true}');
    });
    const response = await httpFetch(`${base}/v1/chat`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body: '{"prompt":"é"}',
    });
    expect({
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries([...response.headers]),
      json: await response.json(),
    }).toEqual({
      ok: true,
      status: 201,
      statusText: "Made",
      headers: {
        "content-length": "11",
        "content-type": "application/json",
        connection: "keep-alive",
        date: expect.any(String),
        "keep-alive": "timeout=5",
        "x-request-id": "one, two",
      },
      json: { ok: true },
    });
    expect(received).toEqual([
      {
        method: "POST",
        url: "/v1/chat",
        headers: expect.objectContaining({
          "content-type": "application/json",
          authorization: "Bearer k",
          "content-length": String(Buffer.byteLength('{"prompt":"é"}')),
        }),
        body: '{"prompt":"é"}',
      },
    ]);
  });

  test("a byte body and a stream body (chunked, or with the length the caller set) arrive whole", async () => {
    const { base, received } = await startServer((_request, response) => response.end("ok"));
    await (
      await httpFetch(base, { method: "POST", body: new TextEncoder().encode("bytes") })
    ).text();
    const chunked = await httpFetch(base, {
      method: "POST",
      body: streamOf(["str", "eam"]),
      duplex: "half",
    } as RequestInit);
    await chunked.text();
    const sized = await httpFetch(base, {
      method: "POST",
      headers: [["content-length", "5"]],
      body: streamOf(["si", "zed"]),
      duplex: "half",
    } as RequestInit);
    await sized.text();
    expect(
      received.map(({ body, headers }) => ({
        body,
        length: headers["content-length"],
        chunked: headers["transfer-encoding"],
      })),
    ).toEqual([
      { body: "bytes", length: "5", chunked: undefined },
      { body: "stream", length: undefined, chunked: "chunked" },
      { body: "sized", length: "5", chunked: undefined },
    ]);
  });

  test("a stream body written under back-pressure (64 × 1 MiB) arrives whole and leaves no listeners behind", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    onTestFinished(() => {
      process.off("warning", onWarning);
    });
    const { base, received } = await startServer((_request, response) => response.end("ok"));
    const megabyte = new Uint8Array(1024 * 1024).fill(0x61);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 64) {
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(megabyte);
      },
    });
    const response = await httpFetch(base, { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await response.text()).toBe("ok");
    await new Promise((settled) => setImmediate(settled));
    expect(received.map((entry) => entry.body.length)).toEqual([64 * 1024 * 1024]);
    expect(warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"))).toEqual(
      [],
    );
  });

  test("a 1 MB chunked body is read through the web stream whole and in order", async () => {
    const piece = (index: number) => String(index % 10).repeat(1024);
    const { base } = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (let index = 0; index < 1024; index += 1) {
        response.write(piece(index));
      }
      response.end();
    });
    const response = await httpFetch(base);
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body as ReadableStream<Uint8Array>) {
      chunks.push(decoder.decode(chunk, { stream: true }));
    }
    const expected = Array.from({ length: 1024 }, (_, index) => piece(index)).join("");
    expect(chunks.join("")).toEqual(expected);
  });

  test("a gzip-compressed body is decoded, as fetch does", async () => {
    const { base, received } = await startServer((_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("compressed text"));
    });
    expect(await (await httpFetch(base)).text()).toBe("compressed text");
    expect(received[0]?.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  test("a 204 has no body", async () => {
    const { base } = await startServer((_request, response) => response.writeHead(204).end());
    const response = await httpFetch(base, { method: "DELETE" });
    expect({ status: response.status, body: response.body, text: await response.text() }).toEqual({
      status: 204,
      body: null,
      text: "",
    });
  });
});

test("a body of pieces arrives as the pieces joined, with their total length, and again after a 307", async () => {
  const { base, received } = await startServer((request, response) => {
    if (request.url === "/307") {
      response.writeHead(307, { location: "/model" }).end();
      return;
    }
    response.end("ok");
  });
  const text = '{"messages":["é🙂",""]}';
  const pieces = [text.slice(0, 14), text.slice(14, 17), "", text.slice(17)];
  const body = new BodyPieces(pieces.map((piece) => Buffer.from(piece)));
  const init = { method: "POST", body } as unknown as RequestInit;
  await (await httpFetch(base, init)).text();
  await (await httpFetch(`${base}/307`, init)).text();
  expect(
    received.map(({ url, body, headers }) => ({ url, body, length: headers["content-length"] })),
  ).toEqual([
    { url: "/", body: text, length: String(Buffer.byteLength(text)) },
    { url: "/307", body: text, length: String(Buffer.byteLength(text)) },
    { url: "/model", body: text, length: String(Buffer.byteLength(text)) },
  ]);
});

describe("httpFetch: redirects (the Fetch standard's, which Node's fetch follows by default)", () => {
  /** `/307`, `/303` answer with a redirect to `/model`, which answers with the request it got. */
  const redirecting: Handler = (request, response, received) => {
    if (request.url === "/307" || request.url === "/303") {
      response.writeHead(Number(request.url.slice(1)), { location: "/model" }).end();
      return;
    }
    response.end(JSON.stringify({ method: received.method, body: received.body }));
  };

  test("307 sends the body again; 303 turns a POST into a GET without body; the response says so", async () => {
    const { base } = await startServer(redirecting);
    const kept = await httpFetch(`${base}/307`, { method: "POST", body: "hello" });
    const changed = await httpFetch(`${base}/303`, { method: "POST", body: "hello" });
    expect([
      { redirected: kept.redirected, url: kept.url, json: await kept.json() },
      { redirected: changed.redirected, url: changed.url, json: await changed.json() },
    ]).toEqual([
      { redirected: true, url: `${base}/model`, json: { method: "POST", body: "hello" } },
      { redirected: true, url: `${base}/model`, json: { method: "GET", body: "" } },
    ]);
  });

  test("manual returns the 3xx; error fails as fetch does; a stream body cannot be sent again", async () => {
    const { base, received } = await startServer(redirecting);
    const manual = await httpFetch(`${base}/307`, { redirect: "manual" });
    expect({ status: manual.status, location: manual.headers.get("location") }).toEqual({
      status: 307,
      location: "/model",
    });
    const refused = await rejection(httpFetch(`${base}/307`, { redirect: "error" }));
    const streamed = await rejection(
      httpFetch(`${base}/307`, {
        method: "POST",
        body: streamOf(["once"]),
        duplex: "half",
      } as RequestInit),
    );
    for (const error of [refused, streamed]) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("fetch failed");
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
    expect(received.map(({ url }) => url)).toEqual(["/307", "/307", "/307"]);
  });
});

describe("httpFetch: failures keep undici's shapes", () => {
  test("connection refused: TypeError 'fetch failed' with ECONNREFUSED, a retryable network error", async () => {
    const { base } = await startServer((_request, response) => response.end());
    const closing = servers.pop();
    await new Promise((done) => closing?.close(done));
    const error = await rejection(httpFetch(`${base}/v1/chat/completions`, { method: "POST" }));
    expect(error).toBeInstanceOf(TypeError);
    expect({
      message: (error as Error).message,
      code: ((error as Error).cause as NodeJS.ErrnoException).code,
    }).toEqual({ message: "fetch failed", code: "ECONNREFUSED" });
    expect(classifyFailure(error)).toMatchObject({ errorType: "network", retryable: true });
  });

  test("a server that cuts the stream: the body fails with TypeError 'terminated', a network error", async () => {
    const { base } = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n", () => response.socket?.destroy());
    });
    const response = await httpFetch(base);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    const error = await rejection(reader.read());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("terminated");
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(classifyFailure(error)).toMatchObject({ errorType: "network", retryable: true });
  });

  test("a server that never answers: abort rejects with the AbortError and closes the connection", async () => {
    let closed: () => void = () => undefined;
    const connectionClosed = new Promise<void>((done) => {
      closed = done;
    });
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((done) => {
      arrived = done;
    });
    const { base } = await startServer((request) => {
      request.socket.once("close", closed);
      arrived();
    });
    const controller = new AbortController();
    const pending = rejection(
      httpFetch(base, { method: "POST", body: "x", signal: controller.signal }),
    );
    await requestArrived;
    controller.abort();
    const error = await pending;
    expect({ name: (error as Error).name, isDomException: error instanceof DOMException }).toEqual({
      name: "AbortError",
      isDomException: true,
    });
    await connectionClosed;
  });

  test("abort while the body is read: the next read rejects with the AbortError", async () => {
    const { base } = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n");
    });
    const controller = new AbortController();
    const response = await httpFetch(base, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    const error = await rejection(reader.read());
    expect((error as Error).name).toBe("AbortError");
  });

  test("an already aborted signal rejects before anything is sent", async () => {
    const { base, received } = await startServer((_request, response) => response.end());
    const error = await rejection(httpFetch(base, { signal: AbortSignal.abort() }));
    expect((error as Error).name).toBe("AbortError");
    expect(received).toEqual([]);
  });

  test("a port fetch blocks and a key HTTP cannot carry fail as Node's fetch fails them, before sending", async () => {
    const { base, received } = await startServer((_request, response) => response.end());
    const badPort = await rejection(httpFetch("http://127.0.0.1:6000/v1"));
    const placeholderKey = await rejection(
      httpFetch(base, { headers: { authorization: "Bearer sk-…" } }),
    );
    expect([badPort, placeholderKey].map((error) => (error as Error).message)).toEqual([
      "fetch failed",
      "Cannot convert argument to a ByteString because the character at index 10 has a value of 8230 which is greater than 255.",
    ]);
    expect(classifyFailure(badPort)).toMatchObject({
      errorType: "configuration",
      retryable: false,
    });
    expect(classifyFailure(placeholderKey)).toMatchObject({
      errorType: "configuration",
      retryable: false,
    });
    expect(received).toEqual([]);
  });
});
