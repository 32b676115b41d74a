import { createServer, type IncomingMessage } from "node:http";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial of round 3 session 36 (P3-3): a server that took the request and never sent its headers
// was reported as "the model stream stalled: no data for 4 s", though no stream ever began. It
// is said as what happened now: no response, not even its headers, within the idle limit.

test("-p: a server that never sends headers is said to have sent no response", async ({ cli }) => {
  const held: IncomingMessage[] = [];
  // Takes each request and answers nothing, keeping the connection open.
  const server = createServer((request) => {
    held.push(request);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  try {
    const run = await cli(["-p", "hello"], {
      env: {
        TURNLOOP_BASE_URL: `http://127.0.0.1:${port}/v1`,
        TURNLOOP_STREAM_IDLE_TIMEOUT_MS: "1000",
        TURNLOOP_MAX_RETRIES: "0",
      },
    });
    expect(held.length).toBe(1);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "the model server sent no response (not even its headers) within 1 s",
    );
    expect(run.stderr).not.toContain("stream stalled");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
