import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import {
  createServer as createPlainServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createSecureServer } from "node:https";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { classifyFailure } from "../../src/llm/errors.js";
import { createHttpFetch, httpFetch } from "../../src/llm/http-fetch.js";
import { type Gate, gate } from "../support/gate.js";
import { selfSignedCertificate } from "../support/self-signed.js";

// Issue 26: httpFetch (src/llm/http-fetch.ts) against a real TLS server with a certificate made
// at test time, and its idle timeout (300 s by default, 200 ms here through `idleTimeoutMs`).

/** Why these tests cannot make a certificate here, or undefined when `openssl` runs. */
function opensslMissing(): string | undefined {
  if (spawnSync("openssl", ["version"]).status === 0) {
    return undefined;
  }
  const reason = "`openssl` is not on PATH: it makes the test server's certificate";
  if (process.env.CI === "true") {
    throw new Error(`the TLS tests must run in CI: ${reason}`);
  }
  process.stderr.write(`skipping the httpFetch TLS tests: ${reason}\n`);
  return reason;
}

const missing = opensslMissing();
const IDLE_TIMEOUT_MS = 200;
const folder = mkdtempSync(join(tmpdir(), "turnloop-tls-"));
/** A self-signed certificate for 127.0.0.1 and its key (PEM), made once for this file. */
const credentials = { certificate: "", key: "", certificatePath: "" };
/** The built module, as the `turnloop` command loads it (the CLI tests also run `dist/`). */
const BUILT_HTTP_FETCH = fileURLToPath(new URL("../../dist/llm/http-fetch.js", import.meta.url));

beforeAll(() => {
  if (missing !== undefined) {
    return;
  }
  Object.assign(credentials, selfSignedCertificate(folder));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const servers: Array<Server & { closeAllConnections(): void }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A local server (`https:` with the test certificate, or plain `http:`) answering with `handler`. */
async function startServer(secure: boolean, handler: Handler): Promise<string> {
  const server = secure
    ? createSecureServer({ cert: credentials.certificate, key: credentials.key }, handler)
    : createPlainServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `${secure ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("resolved, expected a rejection"),
    (error: unknown) => error,
  );
}

/** An error's message, and its cause's message and code: what a user's report shows. */
function shapeOf(error: unknown): { type: string; message: string; cause: unknown } {
  const cause = (error as Error).cause as NodeJS.ErrnoException | undefined;
  return {
    type: (error as Error).constructor.name,
    message: (error as Error).message,
    cause: cause === undefined ? undefined : { message: cause.message, code: cause.code },
  };
}

const EVENTS = ['data: {"delta":"Hel"}\n\n', 'data: {"delta":"lo"}\n\n', "data: [DONE]\n\n"];

describe.skipIf(missing !== undefined)("httpFetch over TLS", () => {
  test("a streaming reply from a server with a trusted certificate is read whole, event by event", async () => {
    const read: Gate[] = EVENTS.map(() => gate());
    const seen: Array<{ encrypted: boolean; method?: string; body: string }> = [];
    const base = await startServer(true, (request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (text: string) => {
        body += text;
      });
      request.on("end", async () => {
        seen.push({
          encrypted: (request.socket as TLSSocket).encrypted,
          method: request.method,
          body,
        });
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const [index, event] of EVENTS.entries()) {
          response.write(event);
          await read[index]?.opened;
        }
        response.end();
      });
    });
    const secureFetch = createHttpFetch({ certificateAuthorities: credentials.certificate });
    const response = await secureFetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"stream":true}',
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      chunks.push(decoder.decode(value, { stream: true }));
      // The server writes the next event only once this one was read: one event per chunk.
      read[chunks.length - 1]?.open();
    }
    expect({
      status: response.status,
      type: response.headers.get("content-type"),
      chunks,
      seen,
    }).toEqual({
      status: 200,
      type: "text/event-stream",
      chunks: EVENTS,
      seen: [{ encrypted: true, method: "POST", body: '{"stream":true}' }],
    });
  });

  test("without the authority trusted, the self-signed server is refused before any request is sent", async () => {
    const requests: string[] = [];
    const base = await startServer(true, (request, response) => {
      requests.push(request.url ?? "");
      response.end("never");
    });
    const error = await rejection(httpFetch(`${base}/v1/chat/completions`, { method: "POST" }));
    expect({ shape: shapeOf(error), requests }).toEqual({
      shape: {
        type: "TypeError",
        message: "fetch failed",
        cause: { message: "self-signed certificate", code: "DEPTH_ZERO_SELF_SIGNED_CERT" },
      },
      requests: [],
    });
  });
});

describe.skipIf(missing !== undefined)(
  "httpFetch over TLS in a process started with NODE_EXTRA_CA_CERTS",
  () => {
    test("the default httpFetch trusts the authority Node was given at start, as a user's turnloop does", async () => {
      const base = await startServer(true, (_request, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" }).end(EVENTS.join(""));
      });
      const script = `const { httpFetch } = await import(${JSON.stringify(BUILT_HTTP_FETCH)});
const response = await httpFetch(${JSON.stringify(`${base}/v1/chat/completions`)});
process.stdout.write(JSON.stringify({ status: response.status, body: await response.text() }));`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--input-type=module", "-e", script],
        { env: { ...process.env, NODE_EXTRA_CA_CERTS: credentials.certificatePath } },
      );
      expect(JSON.parse(stdout)).toEqual({ status: 200, body: EVENTS.join("") });
    });
  },
);

describe("httpFetch idle timeout (idleTimeoutMs, 300 s by default)", () => {
  test("a server that stops sending mid-body: the body fails with 'terminated', cause ETIMEDOUT", async () => {
    const closed = gate();
    const base = await startServer(false, (_request, response) => {
      response.socket?.once("close", closed.open);
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(EVENTS[0]);
      // …and nothing more: the connection stays open and silent until the client gives up.
    });
    const quietFetch = createHttpFetch({ idleTimeoutMs: IDLE_TIMEOUT_MS });
    const response = await quietFetch(base);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const error = await rejection(reader.read());
    expect({ first: new TextDecoder().decode(first.value), error: shapeOf(error) }).toEqual({
      first: EVENTS[0],
      error: {
        type: "TypeError",
        message: "terminated",
        cause: { message: "no data from the server for 0.2 s", code: "ETIMEDOUT" },
      },
    });
    expect(classifyFailure(error)).toMatchObject({ errorType: "network", retryable: true });
    // The client closed the silent connection (the server closes none until the test ends).
    await closed.opened;
  });

  test("a server that never answers: 'fetch failed', cause ETIMEDOUT, a retryable network error", async () => {
    const base = await startServer(false, () => undefined);
    const quietFetch = createHttpFetch({ idleTimeoutMs: IDLE_TIMEOUT_MS });
    const error = await rejection(quietFetch(base, { method: "POST", body: "{}" }));
    expect(shapeOf(error)).toEqual({
      type: "TypeError",
      message: "fetch failed",
      cause: { message: "no data from the server for 0.2 s", code: "ETIMEDOUT" },
    });
    expect(classifyFailure(error)).toMatchObject({ errorType: "network", retryable: true });
  });

  test("an idle timeout that is not a positive number is refused", () => {
    expect(() => createHttpFetch({ idleTimeoutMs: 0 })).toThrow(
      new RangeError("idleTimeoutMs must be a positive number, not 0"),
    );
  });
});
