import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { messageWriter } from "../../src/acp/message-writer.js";
import { heldWritable } from "../support/held-writable.js";

const update = (text: string): acp.AnyMessage => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: {
    sessionId: "s-1",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  },
});

describe("messageWriter", () => {
  it("writes each message as one JSON line, in order, the bytes the SDK's ndJsonStream writes", async () => {
    const { target, writes } = heldWritable(1_048_576);
    const writer = messageWriter(target).getWriter();
    const messages = [update("Hel"), update("lo ✓\n"), { jsonrpc: "2.0", id: 3, result: {} }];
    for (const message of messages) {
      await writer.write(message as acp.AnyMessage);
    }
    expect(writes).toEqual(messages.map((message) => `${JSON.stringify(message)}\n`));
  });

  it("waits for the output to drain while it is full, and loses nothing", async () => {
    const { target, writes, hold, release } = heldWritable(16);
    hold();
    const writer = messageWriter(target).getWriter();
    const first = writer.write(update("first"));
    const second = writer.write(update("second"));
    let firstWritten = false;
    void first.then(() => {
      firstWritten = true;
    });
    // The first line fills the 16-byte buffer: its write waits, the second is not handed on.
    await new Promise((resolve) => setImmediate(resolve));
    expect({ firstWritten, writes: writes.length }).toEqual({ firstWritten: false, writes: 1 });
    release();
    await first;
    release();
    await second;
    expect(writes).toEqual(
      [update("first"), update("second")].map((message) => `${JSON.stringify(message)}\n`),
    );
  });

  it("rejects a write once the output is closed", async () => {
    const { target } = heldWritable(1_024);
    target.destroy();
    const writer = messageWriter(target).getWriter();
    await expect(writer.write(update("late"))).rejects.toThrow("ACP output is closed");
  });
});
