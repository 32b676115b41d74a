import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { HUGE_MESSAGE_BYTES, shareHugeTexts, withHugeBodies } from "../../src/llm/huge-messages.js";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { LlmEvent } from "../../src/llm/provider.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, Wire } from "../support/fake-model-types.js";
import { MODEL_FOR_WIRE } from "../support/harness.js";

// Issue 27 item 3: a huge model request is sent without fetch's second copy of its body (the
// clone a redirect-following request tees), at the cost of not following a redirect.

interface Received {
  path: string;
  bytes: number;
}

let server: Server | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
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

/** What a server got: the body, its Content-Length and Transfer-Encoding headers when sent. */
interface Sent {
  body: string;
  length?: string;
  encoding?: string;
}

/** A server that answers every request `{"ok":true}` and records what it got in `seen`. */
async function startBodyServer(seen: Sent[]): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { "content-length": length, "transfer-encoding": encoding } = request.headers;
      seen.push({
        body: Buffer.concat(chunks).toString("utf8"),
        ...(length === undefined ? {} : { length }),
        ...(encoding === undefined ? {} : { encoding }),
      });
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
    const seen: Sent[] = [];
    const base = await startBodyServer(seen);
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

describe("huge texts shared between the history and the request body", () => {
  test("a shared text is sent in its placeholder's place, escaped, with the body's exact length", async () => {
    const seen: Sent[] = [];
    const base = await startBodyServer(seen);
    // Quotes, backslashes, control characters, multi-byte characters and surrogate pairs.
    const text = `"\\\n\u0001é☕😀`.repeat(HUGE_MESSAGE_BYTES / 8);
    const prompt = [
      { role: "user", content: [{ type: "text", text }] },
      { role: "user", content: [{ type: "text", text: "short" }] },
    ];
    const shared = shareHugeTexts(prompt);
    const sentBody = JSON.stringify({ messages: shared.value });
    expect(sentBody.length).toBeLessThan(1000);
    expect(shared.value[1]).toBe(prompt[1]);
    const response = await withHugeBodies()(`${base}/model`, { method: "POST", body: sentBody });
    expect(await response.json()).toEqual({ ok: true });
    const expected = JSON.stringify({ messages: prompt });
    expect(seen).toEqual([{ body: expected, length: String(Buffer.byteLength(expected)) }]);
    shared.release();
    await expect(
      withHugeBodies()(`${base}/model`, { method: "POST", body: sentBody }),
    ).rejects.toThrow("released huge text");
  });

  test("parts walked once and found to hold no huge text are not walked again", () => {
    /** How often each kept message is looked into (property reads, key listings). */
    const looks = { user: 0, assistant: 0 };
    const watched = <T extends object>(name: keyof typeof looks, target: T): T =>
      new Proxy(target, {
        get: (object, key, receiver) => {
          looks[name] += 1;
          return Reflect.get(object, key, receiver);
        },
        ownKeys: (object) => {
          looks[name] += 1;
          return Reflect.ownKeys(object);
        },
      });
    const user = watched("user", { role: "user", content: [{ type: "text", text: "question" }] });
    const assistant = watched("assistant", {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "view", input: { path: "a" } }],
    });
    const huge = "x".repeat(HUGE_MESSAGE_BYTES);
    const hugeResult = { role: "tool", content: [{ type: "text", text: huge }] };
    /** The text of a message's first part. */
    const firstText = (message: unknown) =>
      (message as { content: { text?: string }[] }).content[0]?.text;

    const first = shareHugeTexts([{ role: "system", content: "be brief" }, user, assistant]);
    expect(first.value).toEqual([{ role: "system", content: "be brief" }, user, assistant]);
    expect(looks.user).toBeGreaterThan(0);
    expect(looks.assistant).toBeGreaterThan(0);
    first.release();

    // The next request: the same kept messages, then a new one holding a huge text.
    const lookedBefore = { ...looks };
    const second = shareHugeTexts([
      { role: "system", content: "be brief" },
      user,
      assistant,
      hugeResult,
    ]);
    expect(looks).toEqual(lookedBefore);
    expect(second.value[1]).toBe(user);
    expect(second.value[2]).toBe(assistant);
    const placeholder = firstText(second.value[3]);
    expect(placeholder).toMatch(/^turnloop-huge-text-.*~$/);
    expect(second.value[3]).toEqual({
      role: "tool",
      content: [{ type: "text", text: placeholder }],
    });

    // A part that holds a huge text is walked again, and its text shared again, every request.
    const third = shareHugeTexts([user, assistant, hugeResult]);
    expect(looks).toEqual(lookedBefore);
    const again = firstText(third.value[2]);
    expect(again).toMatch(/^turnloop-huge-text-.*~$/);
    expect(again).not.toBe(placeholder);
    expect(hugeResult.content[0]?.text).toBe(huge);
    second.release();
    third.release();
  });

  test.each<Wire>(["openai-chat", "openai-responses", "anthropic"])(
    "a huge prompt reaches the %s model whole through the provider",
    async (wire) => {
      model = await startFakeModelServer();
      model.setResponder(() => ({ text: "read it" }));
      const resolved = resolveModel(
        { model: MODEL_FOR_WIRE[wire], baseUrl: `${model.url}/v1` },
        { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" },
      );
      if (!resolved.ok) {
        throw new Error(resolved.message);
      }
      const provider = createProvider(resolved.configuration);
      const prompt = `begin ${"é".repeat(HUGE_MESSAGE_BYTES)} end`;
      const events: LlmEvent[] = [];
      const request = {
        system: "be brief",
        messages: [{ role: "user" as const, content: prompt }],
        tools: [],
      };
      for await (const event of provider.stream(request, new AbortController().signal)) {
        events.push(event);
      }
      expect(events.at(-1)?.type).toBe("done");
      expect(model.requests).toHaveLength(1);
      const body = JSON.stringify(model.requests[0]?.body);
      expect(body.includes(JSON.stringify(prompt))).toBe(true);
      expect(body.includes("turnloop-huge-text-")).toBe(false);
    },
  );
});
