import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { acpByteStream } from "../../src/acp/framing.js";
import { collectGarbage, HUGE_MESSAGE_BYTES } from "../../src/llm/huge-messages.js";

// Issue 27 item 3: turnloop reads ACP's newline-delimited JSON-RPC itself (src/acp/framing.ts)
// and hands parsed messages to the ACP SDK's connection. The edges are the SDK's `ndJsonStream`'s;
// a line over the limit is dropped as it is read; a finished line's bytes are not kept.

/** The agent's end of a byte pipe: chunks go in by hand, what it writes is collected as lines. */
function pipe(options: { maxMessageBytes?: number } = {}) {
  let input: ReadableStreamDefaultController<Uint8Array> | undefined;
  const written: string[] = [];
  const log: string[] = [];
  const stream = acpByteStream(
    new WritableStream<Uint8Array>({
      write: (chunk) => {
        written.push(new TextDecoder().decode(chunk));
      },
    }),
    new ReadableStream<Uint8Array>({
      start: (controller) => {
        input = controller;
      },
    }),
    { ...options, log: (line) => log.push(line) },
  );
  if (input === undefined) {
    throw new Error("the controller is set synchronously");
  }
  const controller = input;
  const reader = stream.readable.getReader();
  return {
    send: (chunk: Uint8Array | string) =>
      controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk),
    end: () => controller.close(),
    read: async (): Promise<acp.AnyMessage[]> => {
      const messages: acp.AnyMessage[] = [];
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          return messages;
        }
        messages.push(value);
      }
    },
    next: async () => (await reader.read()).value,
    written: () =>
      written
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    log,
  };
}

/**
 * Sends `bytes` in 64 KiB copies that only the reader holds; @returns a WeakRef to each. (A
 * function of its own: a suspended test would hold its last chunk in a local.)
 */
function sendInCopies(send: (chunk: Uint8Array) => void, bytes: Uint8Array): WeakRef<Uint8Array>[] {
  const chunks: WeakRef<Uint8Array>[] = [];
  for (let start = 0; start < bytes.length; start += 65_536) {
    const chunk = bytes.slice(start, start + 65_536);
    chunks.push(new WeakRef(chunk));
    send(chunk);
  }
  return chunks;
}

describe("the ACP line reader", () => {
  test("messages split anywhere (mid UTF-8 too), CRLF, a BOM, blank and bad lines, a last line without newline", async () => {
    const peer = pipe();
    const bytes = new TextEncoder().encode(
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"text":"café ☕"}}\r\n',
    );
    // Split inside "é" (2 bytes) and inside "☕" (3 bytes).
    const cut1 = bytes.indexOf(0xc3) + 1;
    const cut2 = bytes.indexOf(0xe2) + 2;
    peer.send(bytes.subarray(0, cut1));
    peer.send(bytes.subarray(cut1, cut2));
    peer.send(bytes.subarray(cut2));
    peer.send("   \n\nnot json\n[1,2]\n42\n");
    peer.send('\ufeff{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc":"2.0","id":"z",');
    peer.send('"result":{}}');
    peer.end();
    expect(await peer.read()).toEqual([
      { jsonrpc: "2.0", id: 1, method: "a", params: { text: "café ☕" } },
      { jsonrpc: "2.0", method: "b" },
      { jsonrpc: "2.0", id: "z", result: {} },
    ]);
    expect(peer.written()).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid request: JSON-RPC batches are not supported" },
      },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request", data: 42 } },
    ]);
  });

  test("a request whose id is no string or safe whole number gets -32600 saying so, as on the server face", async () => {
    // Trial 33, finding 4: `99999999999999999999999` was answered as `1e+23`.
    const peer = pipe();
    peer.send('{"jsonrpc":"2.0","id":99999999999999999999999,"method":"a"}\n');
    peer.send('{"jsonrpc":"2.0","id":2.5,"method":"a"}\n');
    peer.send('{"jsonrpc":"2.0","id":9007199254740991,"method":"a"}\n');
    peer.end();
    expect(await peer.read()).toEqual([{ jsonrpc: "2.0", id: 9007199254740991, method: "a" }]);
    const range = "a string or a whole number from -9007199254740991 to 9007199254740991";
    expect(peer.written()).toEqual(
      ["1e+23", "2.5"].map((shown) => ({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: `Invalid request: a request's id must be ${range}, not ${shown}`,
        },
      })),
    );
  });

  test("a line over the limit is dropped: a request is answered too large with its id, anything else with id null", async () => {
    const peer = pipe({ maxMessageBytes: 100 });
    const padding = "p".repeat(300);
    // The over-limit request arrives in pieces, its id in the first one.
    const request = `{"jsonrpc":"2.0","id":"big-1","method":"session/prompt","params":{"text":"${padding}"}}\n`;
    for (let start = 0; start < request.length; start += 40) {
      peer.send(request.slice(start, start + 40));
    }
    const notification = `{"jsonrpc":"2.0","method":"session/cancel","params":{"text":"${padding}"}}`;
    peer.send(`${notification}\n`);
    peer.send('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    peer.end();
    expect(await peer.read()).toEqual([{ jsonrpc: "2.0", id: 7, method: "ping" }]);
    const dropped = `dropped a ${notification.length}-byte message (the limit is 100 bytes, TURNLOOP_MAX_MESSAGE_BYTES)`;
    expect(peer.written()).toEqual([
      {
        jsonrpc: "2.0",
        id: "big-1",
        error: {
          code: -32600,
          message: `Message too large: ${request.length - 1} bytes; the limit is 100 bytes per line.`,
        },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid request", data: `turnloop: ${dropped}` },
      },
    ]);
    expect(peer.log).toEqual([
      `turnloop: dropped a ${request.length - 1}-byte message (the limit is 100 bytes, TURNLOOP_MAX_MESSAGE_BYTES); request "big-1" gets an error`,
      `turnloop: ${dropped}; answered with id null`,
    ]);
  });

  test("once a huge line is handed on, none of its chunks is kept while the reader waits for more", async () => {
    const peer = pipe();
    const text = "x".repeat(HUGE_MESSAGE_BYTES);
    const line = new TextEncoder().encode(
      `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"text":"${text}"}}\n`,
    );
    const chunks = sendInCopies(peer.send, line);
    const message = (await peer.next()) as { params: { text: string } };
    expect(message.params.text.length).toBe(text.length);
    // The reader now waits for the next chunk; nothing of the line may be held meanwhile. A WeakRef
    // keeps its target alive until the job that made it ends: let that job end first.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(chunks.filter((chunk) => chunk.deref() !== undefined)).toEqual([]);
    peer.end();
    expect(await peer.read()).toEqual([]);
  });
});
