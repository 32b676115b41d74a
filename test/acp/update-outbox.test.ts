import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { boundedUpdates, MAX_CHUNK_TEXT, UpdateOutbox } from "../../src/acp/update-outbox.js";

const text = (value: string) => ({ type: "text" as const, text: value });
const chunk = (
  sessionUpdate: "agent_message_chunk" | "agent_thought_chunk",
  value: string,
  messageId: string,
): acp.SessionUpdate => ({ sessionUpdate, content: text(value), messageId });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** An outbox whose notifications are recorded as sent. */
function recordingOutbox() {
  const sent: acp.SessionUpdate[] = [];
  const outbox = new UpdateOutbox(async (update) => {
    sent.push(update);
  });
  return { outbox, sent };
}

describe("UpdateOutbox", () => {
  it("sends the chunks of one message made in one turn as one chunk with their texts joined", async () => {
    const { outbox, sent } = recordingOutbox();
    for (const piece of ["w0 ", "w1 ", "w2 ", "w3"]) {
      outbox.send(chunk("agent_message_chunk", piece, "message-1"));
    }
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([chunk("agent_message_chunk", "w0 w1 w2 w3", "message-1")]);
    outbox.send(chunk("agent_message_chunk", " and more", "message-1"));
    await outbox.flush();
    expect(sent).toEqual([
      chunk("agent_message_chunk", "w0 w1 w2 w3", "message-1"),
      chunk("agent_message_chunk", " and more", "message-1"),
    ]);
  });

  it("sends a waiting chunk at once when told its message is whole", async () => {
    const { outbox, sent } = recordingOutbox();
    outbox.send(chunk("agent_message_chunk", "w0 ", "message-1"));
    outbox.send(chunk("agent_message_chunk", "w1", "message-1"));
    outbox.sendWaiting();
    expect(sent).toEqual([chunk("agent_message_chunk", "w0 w1", "message-1")]);
    outbox.sendWaiting();
    await nextTurn();
    expect(sent).toEqual([chunk("agent_message_chunk", "w0 w1", "message-1")]);
  });

  it("keeps the order: another message, thoughts or any other update end the waiting chunk first", async () => {
    const { outbox, sent } = recordingOutbox();
    const toolCall: acp.SessionUpdate = {
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "view",
      status: "pending",
    };
    outbox.send(chunk("agent_thought_chunk", "Think", "message-1"));
    outbox.send(chunk("agent_thought_chunk", "ing.", "message-1"));
    outbox.send(chunk("agent_message_chunk", "Let me ", "message-1"));
    outbox.send(chunk("agent_message_chunk", "look.", "message-1"));
    outbox.send(toolCall);
    outbox.send(chunk("agent_message_chunk", "It says hello.", "message-2"));
    outbox.send(chunk("agent_message_chunk", "Bye.", "message-3"));
    await outbox.flush();
    expect(sent).toEqual([
      chunk("agent_thought_chunk", "Thinking.", "message-1"),
      chunk("agent_message_chunk", "Let me look.", "message-1"),
      toolCall,
      chunk("agent_message_chunk", "It says hello.", "message-2"),
      chunk("agent_message_chunk", "Bye.", "message-3"),
    ]);
  });

  it("sends chunks with more than text and a message id, and the user's own chunks, as they are", async () => {
    const { outbox, sent } = recordingOutbox();
    const annotated: acp.SessionUpdate = {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "b", annotations: { priority: 1 } },
      messageId: "message-1",
    };
    const user: acp.SessionUpdate = {
      sessionUpdate: "user_message_chunk",
      content: text("hi"),
      messageId: "user-1",
    };
    outbox.send(chunk("agent_message_chunk", "a", "message-1"));
    outbox.send(annotated);
    outbox.send(user);
    outbox.send(user);
    await outbox.flush();
    expect(sent).toEqual([chunk("agent_message_chunk", "a", "message-1"), annotated, user, user]);
  });

  it("flush resolves once every update is written, and a failed send does not reject it", async () => {
    const written: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Like the SDK's connection: one write at a time, in call order.
    let queue = Promise.resolve();
    const outbox = new UpdateOutbox((update) => {
      const write = queue.then(async () => {
        await gate;
        if (update.sessionUpdate === "plan") {
          throw new Error("connection closed");
        }
        written.push(update.sessionUpdate);
      });
      queue = write.catch(() => undefined);
      return write;
    });
    outbox.send(chunk("agent_message_chunk", "a", "message-1"));
    outbox.send({ sessionUpdate: "plan", entries: [] });
    let flushed = false;
    const flushing = outbox.flush().then(() => {
      flushed = true;
    });
    await nextTurn();
    expect(flushed).toBe(false);
    release();
    await flushing;
    expect(written).toEqual(["agent_message_chunk"]);
  });

  it("sends a text longer than MAX_CHUNK_TEXT as chunks of the same message, never splitting a pair", async () => {
    const { outbox, sent } = recordingOutbox();
    // A pair straddling the first boundary goes whole into the second chunk.
    const long = `${"a".repeat(MAX_CHUNK_TEXT - 1)}🙂${"b".repeat(MAX_CHUNK_TEXT)}`;
    outbox.send(chunk("agent_message_chunk", long.slice(0, 10), "message-1"));
    outbox.send(chunk("agent_message_chunk", long.slice(10), "message-1"));
    await outbox.flush();
    expect(sent).toEqual([
      chunk("agent_message_chunk", "a".repeat(MAX_CHUNK_TEXT - 1), "message-1"),
      chunk("agent_message_chunk", `🙂${"b".repeat(MAX_CHUNK_TEXT - 2)}`, "message-1"),
      chunk("agent_message_chunk", "bb", "message-1"),
    ]);
    const prompt: acp.SessionUpdate = {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "c".repeat(MAX_CHUNK_TEXT + 1) },
      messageId: "event-1",
    };
    expect(boundedUpdates(prompt)).toEqual([
      { ...prompt, content: text("c".repeat(MAX_CHUNK_TEXT)) },
      { ...prompt, content: text("c") },
    ]);
    const image: acp.SessionUpdate = {
      sessionUpdate: "user_message_chunk",
      content: { type: "image", mimeType: "image/png", data: "x".repeat(MAX_CHUNK_TEXT + 1) },
    };
    expect(boundedUpdates(image)).toEqual([image]);
  });
});
