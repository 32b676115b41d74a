import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { HUGE_MESSAGE_BYTES, withHugeBodies } from "../../src/llm/huge-messages.js";

// Issue 27 item 3: a huge model request is sent without fetch's second copy of its body (the
// clone a redirect-following request tees), at the cost of not following a redirect.

interface Received {
  path: string;
  bytes: number;
}

let server: Server | undefined;
afterEach(async () => {
  const closing = server;
  server = undefined;
  await new Promise((done) => (closing === undefined ? done(undefined) : closing.close(done)));
});

/** A server that answers `/moved` with a 307 to `/model` and `/model` with `{"ok":true}`. */
async function startServer(received: Received[]): Promise<string> {
  server = createServer((request, response) => {
    let bytes = 0;
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", bytes });
      if (request.url === "/moved") {
        response.writeHead(307, { location: "/model" }).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("model requests with huge bodies", () => {
  test("a huge body reaches the model whole, in one request", async () => {
    const received: Received[] = [];
    const base = await startServer(received);
    const body = JSON.stringify({ prompt: "x".repeat(HUGE_MESSAGE_BYTES + 1) });
    const response = await withHugeBodies()(`${base}/model`, { method: "POST", body });
    expect(await response.json()).toEqual({ ok: true });
    expect(received).toEqual([{ path: "/model", bytes: Buffer.byteLength(body) }]);
  });

  test("a redirect is followed for an ordinary body and refused for a huge one", async () => {
    const received: Received[] = [];
    const base = await startServer(received);
    const small = JSON.stringify({ prompt: "hello" });
    const followed = await withHugeBodies()(`${base}/moved`, { method: "POST", body: small });
    expect(await followed.json()).toEqual({ ok: true });
    const huge = JSON.stringify({ prompt: "x".repeat(HUGE_MESSAGE_BYTES) });
    await expect(withHugeBodies()(`${base}/moved`, { method: "POST", body: huge })).rejects.toThrow(
      "fetch failed",
    );
    const bytes = Buffer.byteLength(huge);
    expect(received).toEqual([
      { path: "/moved", bytes: small.length },
      { path: "/model", bytes: small.length },
      { path: "/moved", bytes },
    ]);
  });

  test("a redirect mode the caller chose is kept for a huge body", async () => {
    const received: Received[] = [];
    const base = await startServer(received);
    const huge = JSON.stringify({ prompt: "x".repeat(HUGE_MESSAGE_BYTES) });
    const response = await withHugeBodies()(`${base}/moved`, {
      method: "POST",
      body: huge,
      redirect: "manual",
    });
    expect(response.status).toBe(307);
    expect(received).toEqual([{ path: "/moved", bytes: Buffer.byteLength(huge) }]);
  });

  test("a huge body is sent as the same bytes, with its Content-Length and not chunked", async () => {
    const seen: Array<{ body: string; length?: string; encoding?: string }> = [];
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        seen.push({
          body: Buffer.concat(chunks).toString("utf8"),
          ...(request.headers["content-length"] === undefined
            ? {}
            : { length: request.headers["content-length"] }),
          ...(request.headers["transfer-encoding"] === undefined
            ? {}
            : { encoding: request.headers["transfer-encoding"] }),
        });
        response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Two- and three-byte characters and surrogate pairs, across every 1 Mi cut.
    const body = JSON.stringify({ prompt: `x${"é☕😀".repeat(HUGE_MESSAGE_BYTES / 4)}` });
    const response = await withHugeBodies()(`${base}/model`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toEqual([{ body, length: String(Buffer.byteLength(body)) }]);
  });
});
