import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterEach, describe, expect, test } from "vitest";
import { type ZodType, z } from "zod";
import { preparationsWaiting, prepareAt } from "../../src/llm/first-response.js";
import { httpFetch } from "../../src/llm/http-fetch.js";
import { SAMPLE_CHUNKS, withSyncChunkValidation } from "../../src/llm/sync-chunk-validation.js";
import { compatibleModel } from "./helpers.js";

// Issue 26 (3b, 4e): one-time work the first model turn would pay between the model's answer and
// the next request (zod compiling the chunk parsers, Node's released-reader error) runs while a
// model request waits for its answer, never before it is sent. The tests share the module's one
// queue, so they run in this order.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** Resolves once the work queued before it has run. */
function preparationsDone(): Promise<void> {
  return new Promise((resolve) => prepareAt(resolve));
}

/** The SDK's own chunk schema, its `safeParse` results recorded (the SDK's object, not ours). */
function countParses(model: LanguageModelV3): { results: boolean[] } {
  const schema = (model as { chunkSchema?: { safeParse(value: unknown): { success: boolean } } })
    .chunkSchema;
  if (schema === undefined) {
    throw new Error("the SDK's chat model has no chunkSchema");
  }
  const parse = schema.safeParse.bind(schema);
  const seen = { results: [] as boolean[] };
  schema.safeParse = (value: unknown) => {
    const result = parse(value);
    seen.results.push(result.success);
    return result;
  };
  return seen;
}

/**
 * A server that answers each request's whole body with "ok" once `gate` resolves (called with the
 * number of requests whose body arrived so far).
 */
async function startServer(gate: (requests: number) => Promise<void>): Promise<string> {
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests += 1;
      void gate(requests).then(() => response.end("ok"));
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("work done while the first model request waits for its answer", () => {
  test("a request that could not be sent starts none of it", async () => {
    const ran: string[] = [];
    prepareAt(() => ran.push("queued"));
    // A port just closed: the connection is refused before any byte of the request is sent.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const error = await httpFetch(`http://127.0.0.1:${port}/v1`, {
      method: "POST",
      body: "{}",
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toMatchObject({ code: "ECONNREFUSED" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    expect(preparationsWaiting()).toBe(true);
  });

  test("it runs once, after the request was sent and before the answer it waits for", async () => {
    const model = compatibleModel("http://127.0.0.1:9/v1");
    // A chunk schema of another package version (the installed one's chunks are checked by hand,
    // src/llm/chat-chunk-check.ts, and queue no zod compile): the SDK's, with one more option.
    const holder = model as unknown as { chunkSchema: ZodType };
    holder.chunkSchema = holder.chunkSchema.or(z.null());
    const parses = countParses(model);
    withSyncChunkValidation(model);
    const seen: number[] = [];
    prepareAt(() => seen.push(parses.results.length));
    const done = preparationsDone();
    // The server holds its answer until the queued work has run: the work needs no answer.
    const base = await startServer(async () => {
      await done;
    });
    const response = await httpFetch(`${base}/v1`, { method: "POST", body: "{}" });
    expect(await response.text()).toBe("ok");
    // In the order queued: the chunk samples (each accepted by the SDK's own schema), the test's.
    expect(seen).toEqual([SAMPLE_CHUNKS.length]);
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
    expect(preparationsWaiting()).toBe(false);
    // Once: a second request finds nothing to do and queues nothing.
    const again = await httpFetch(`${base}/v1`, { method: "POST", body: "{}" });
    expect(await again.text()).toBe("ok");
    expect(parses.results).toEqual(SAMPLE_CHUNKS.map(() => true));
  });

  test("Node's released-reader and released-writer errors, when a wire queues them, are built with no stack frames, and later releases build none", async () => {
    // A child process, so that this process's earlier releases do not count: it records each
    // error whose stack V8 writes and how many frames it had (writing them made V8 find the line
    // ends of every script on the stack), runs the preparations, then pipes a stream to its end
    // and releases a reader, as a model response's stages do.
    const module = new URL("../../dist/llm/first-response.js", import.meta.url).href;
    const script = `
      const seen = [];
      Error.prepareStackTrace = (error, frames) => {
        seen.push([String(error.message), frames.length]);
        return String(error);
      };
      const { prepareReleasedLockErrors, runPreparations } = await import(${JSON.stringify(module)});
      prepareReleasedLockErrors();
      runPreparations();
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
      await new ReadableStream({ start: (controller) => controller.close() }).pipeTo(new WritableStream());
      new ReadableStream().getReader().releaseLock();
      console.log(JSON.stringify(seen));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--input-type=module",
      "-e",
      script,
    ]);
    expect(JSON.parse(stdout)).toEqual([
      ["Invalid state: Reader released", 0],
      ["Invalid state: Releasing reader", 0],
      ["Invalid state: Writer has been released", 0],
    ]);
  });
});
