import { createServer, globalAgent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { httpFetch } from "../../src/llm/http-fetch.js";

// Round 3, session 27: 20 request bodies of 2 Mi characters sent at once from one process on a
// loaded machine failed within seconds with "no data from the server for 300 s". Their sockets
// were still connecting: node:http's `ClientRequest.setTimeout` waits for "connect" before it
// sets its time on the socket, and until then the socket keeps the time Node's global agent gave
// it (`timeout: 5000`, meant for idle kept-alive sockets), whose "timeout" event node:http passes
// on as the request's. Here the process is busy past the agent's time (the event loop blocked,
// as building those bodies blocked it) right after the request starts, so the agent's timer is
// due before the loop learns the connection is made: libuv runs timers before polling sockets.

let server: Server | undefined;
afterEach(async () => {
  const closing = server;
  server = undefined;
  closing?.closeAllConnections();
  await new Promise((done) => (closing === undefined ? done(undefined) : closing.close(done)));
});

/** Blocks this thread (timers, sockets and all) for `milliseconds`. */
function blockEventLoop(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

test("a process busy past the agent's socket timeout while connecting still gets its answer", async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "text/plain" }).end("ok"));
  });
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  // Node's agents keep their options (5 s here since Node 19), though its types leave them out.
  const { options } = globalAgent as typeof globalAgent & { options: { timeout?: number } };
  const agentTimeout = options.timeout;
  expect(agentTimeout).toBeGreaterThan(0);
  // The agent gives each new socket its time when the request starts: a shorter one reaches the
  // same state without blocking this worker for 5 s.
  options.timeout = 200;
  try {
    const answer = httpFetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      body: "{}",
    }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      (error: unknown) => ({ error: String(error), cause: String((error as Error).cause) }),
    );
    blockEventLoop(options.timeout + 100);
    expect(await answer).toEqual({ status: 200, body: "ok" });
  } finally {
    options.timeout = agentTimeout;
  }
}, 30_000);
