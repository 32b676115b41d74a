import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createMessageConnection, StreamMessageWriter } from "vscode-jsonrpc/node.js";
import { FramedMessageReader } from "../../src/sdk/framed-reader.js";

/** The LSP base protocol's frame of a message: its UTF-8 length, a blank line, the JSON. */
const frame = (message: object, header = "Content-Length") => {
  const body = JSON.stringify(message);
  return `${header}: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`;
};

const event = (text: string) => ({
  jsonrpc: "2.0",
  method: "session.event",
  params: { sessionId: "s-1", event: { type: "assistant.message_delta", data: { text } } },
});

/** Lets the stream's `data` events and the connection's queue run. */
const settle = async () => {
  for (let turn = 0; turn < 20; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** Everything the reader hands on from `pieces`, written one after the other. */
async function readAll(pieces: Buffer[]): Promise<{ messages: unknown[]; errors: string[] }> {
  const input = new PassThrough();
  const reader = new FramedMessageReader(input);
  const messages: unknown[] = [];
  const errors: string[] = [];
  reader.onError((error) => errors.push(error.message));
  reader.listen((message) => messages.push(message));
  for (const piece of pieces) {
    input.write(piece);
  }
  await settle();
  return { messages, errors };
}

describe("FramedMessageReader", () => {
  const messages = [
    event("Hé"),
    { jsonrpc: "2.0", id: 3, result: { ok: true } },
    event("llo ✓ ".repeat(40)),
    { jsonrpc: "2.0", id: 9, method: "hooks.invoke", params: { hookType: "sessionStart" } },
  ];
  const bytes = Buffer.from(
    [
      frame(messages[0] as object),
      frame(messages[1] as object, "content-length"),
      // Another header field (the Copilot SDK may send a Content-Type) is ignored.
      `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n${frame(messages[2] as object)}`,
      frame(messages[3] as object),
    ].join(""),
  );

  it("hands on every message whole and in order, wherever the bytes are split", async () => {
    for (let split = 1; split < bytes.length; split++) {
      const read = await readAll([bytes.subarray(0, split), bytes.subarray(split)]);
      expect(read, `split at byte ${split}`).toEqual({ messages, errors: [] });
    }
    const byteByByte = Array.from({ length: bytes.length }, (_, at) => bytes.subarray(at, at + 1));
    expect(await readAll(byteByByte)).toEqual({ messages, errors: [] });
  });

  it("reads headers that only look like the server's own as their fields say", async () => {
    const body = (text: string) => JSON.stringify(event(text));
    const length = (text: string) => Buffer.byteLength(body(text));
    const headers = [
      // 19 digits with leading zeros, no space after the colon, a second field after the length.
      `Content-Length: ${String(length("zeros")).padStart(19, "0")}\r\n\r\n${body("zeros")}`,
      `Content-Length:${length("tight")}\r\n\r\n${body("tight")}`,
      `Content-Length: ${length("typed")}\r\nContent-Type: application/json\r\n\r\n${body("typed")}`,
      frame(event("plain ✓")),
    ];
    expect(await readAll([Buffer.from(headers.join(""))])).toEqual({
      messages: ["zeros", "tight", "typed", "plain ✓"].map(event),
      errors: [],
    });
  });

  it("joins a long body that arrives in many pieces", async () => {
    const long = event("ü".repeat(300_000));
    const longBytes = Buffer.from(frame(long) + frame(event("after")));
    const pieces = [];
    for (let at = 0; at < longBytes.length; at += 1_000) {
      pieces.push(longBytes.subarray(at, at + 1_000));
    }
    expect(await readAll(pieces)).toEqual({ messages: [long, event("after")], errors: [] });
  });

  it("reports a body that is not JSON and reads on; stops at a header it cannot read", async () => {
    const broken = `Content-Length: 5\r\n\r\n{oops${frame(event("next"))}`;
    const noLength = `Content-Type: text/plain\r\n\r\n${frame(event("never"))}`;
    const read = await readAll([Buffer.from(broken + noLength)]);
    expect(read.messages).toEqual([event("next")]);
    expect(read.errors).toHaveLength(2);
    expect(read.errors[1]).toBe(
      "unreadable frame from the turnloop server: a frame header without a numeric Content-Length",
    );
    const endless = await readAll([
      Buffer.from(`X-Pad: ${"a".repeat(9_000)}`),
      Buffer.from(frame(event("late"))),
    ]);
    expect(endless).toEqual({
      messages: [],
      errors: ["unreadable frame from the turnloop server: a frame header longer than 8192 bytes"],
    });
  });

  it("gives notifications to their direct handler only when nothing is queued before them", async () => {
    const toApp = new PassThrough();
    const fromApp = new PassThrough();
    const reader = new FramedMessageReader(toApp);
    const connection = createMessageConnection(
      reader,
      new StreamMessageWriter(fromApp),
      undefined,
      {
        messageStrategy: reader.strategy,
      },
    );
    const seen: string[] = [];
    const direct: string[] = [];
    const onEvent = (params: unknown) => {
      seen.push((params as { event: { data: { text: string } } }).event.data.text);
    };
    reader.handleDirectly("session.event", (params) => {
      direct.push((params as { event: { data: { text: string } } }).event.data.text);
      onEvent(params);
    });
    connection.onNotification("session.event", onEvent);
    connection.onRequest("hooks.invoke", () => {
      seen.push("hook");
      return {};
    });
    connection.listen();
    const answered = connection.sendRequest("session.send", {}).then(() => seen.push("answer"));
    // The answer, a notification, a request and a notification in one chunk: all queued, in order.
    toApp.write(
      [
        frame({ jsonrpc: "2.0", id: 0, result: { messageId: "m" } }),
        frame(event("a")),
        frame({ jsonrpc: "2.0", id: 1, method: "hooks.invoke", params: {} }),
        frame(event("b")),
      ].join(""),
    );
    await answered;
    await settle();
    // Once the queue is empty, notifications go straight to their handler, still in order.
    toApp.write(frame(event("c")) + frame(event("d")));
    await settle();
    expect(seen).toEqual(["answer", "a", "hook", "b", "c", "d"]);
    expect(direct).toEqual(["c", "d"]);
    connection.dispose();
  });
});
