import { describe, expect, it } from "vitest";
import type { Message } from "vscode-jsonrpc/node.js";
import { FramedMessageWriter } from "../../src/protocol/framed-writer.js";
import { heldWritable } from "../support/held-writable.js";

const delta = (text: string): Message =>
  ({
    jsonrpc: "2.0",
    method: "session.event",
    params: { sessionId: "s-1", event: { type: "assistant.message_delta", data: { text } } },
  }) as Message;

/** The LSP base protocol's frame of a message: its UTF-8 length, a blank line, the JSON. */
const frame = (message: Message) => {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`;
};

describe("FramedMessageWriter", () => {
  it("writes the first message at once; those written while it is in flight go together next", async () => {
    const { target, writes } = heldWritable(1_048_576);
    const writer = new FramedMessageWriter(target);
    const messages = [delta("Hé"), delta("llo ✓"), { jsonrpc: "2.0", id: 7, result: null }];
    const written = messages.map((message) => writer.write(message as Message));
    // The first is handed on in the same turn, header and body in one write.
    expect(writes).toEqual([frame(messages[0] as Message)]);
    await Promise.all(written);
    await writer.flushed();
    expect(writes).toEqual([
      frame(messages[0] as Message),
      `${frame(messages[1] as Message)}${frame(messages[2] as Message)}`,
    ]);
  });

  it("keeps call order between send and write, and flushed waits for every frame", async () => {
    const { target, writes, hold, release } = heldWritable(1_048_576);
    hold();
    const writer = new FramedMessageWriter(target);
    const messages = Array.from({ length: 50 }, (_, index) =>
      index % 10 === 9
        ? ({ jsonrpc: "2.0", id: index, result: index } as Message)
        : delta(`${index}`),
    );
    const answers = messages.map((message) =>
      "id" in message ? writer.write(message) : writer.send(message),
    );
    let flushed = false;
    const allOut = writer.flushed().then(() => {
      flushed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect({ writes: writes.length, flushed }).toEqual({ writes: 1, flushed: false });
    release();
    await Promise.all([allOut, ...answers]);
    expect(writes.join("")).toBe(messages.map(frame).join(""));
  });

  it("resolves a write made while the output is full once it drains, and loses nothing", async () => {
    const { target, writes, hold, release } = heldWritable(16);
    hold();
    const writer = new FramedMessageWriter(target);
    let settled = false;
    const first = writer.write(delta("first")).then(() => {
      settled = true;
    });
    const more = Array.from({ length: 100 }, (_, index) => delta(`more ${index}`));
    const rest = more.map((message) => writer.write(message));
    await new Promise((resolve) => setImmediate(resolve));
    // The writes made while the output is full wait on one `drain` listener, not one each.
    expect({ settled, drainListeners: target.listenerCount("drain") }).toEqual({
      settled: false,
      drainListeners: 1,
    });
    release();
    await Promise.all([first, ...rest]);
    expect(writes.join("")).toBe([delta("first"), ...more].map(frame).join(""));
  });

  it("rejects a write to a closed output and reports it through onError", async () => {
    const { target } = heldWritable(1_024);
    const writer = new FramedMessageWriter(target);
    const errors: string[] = [];
    writer.onError(([error]) => errors.push(error.message));
    target.destroy();
    await expect(writer.write(delta("late"))).rejects.toThrow("the connection's output is closed");
    expect(errors).toEqual(["the connection's output is closed"]);
  });
});
