import { describe, expect, test } from "vitest";
import { fixtureForFile } from "../sdk/support.js";
import { callingTools } from "../support/replies.js";
import { type Message, spawnServer } from "./raw-peer.js";

// The app's answer to a request of the server's over TURNLOOP_MAX_MESSAGE_BYTES fails that
// request (src/server/framing.ts): it was a framing fault that closed the connection, and with
// it every session of the app.

const fixture = fixtureForFile();
const LIMIT = 64 * 1024;

function eventOf(message: Message): { type: string; data: Record<string, unknown> } | undefined {
  return message.method === "session.event"
    ? (message.params as { event: { type: string; data: Record<string, unknown> } }).event
    : undefined;
}

describe("turnloop --headless: an answer of the app's over the size limit", () => {
  test("userInput.request: ask_user fails with the sizes, the prompt and the connection go on", async () => {
    const environment = { ...fixture.env, TURNLOOP_MAX_MESSAGE_BYTES: String(LIMIT) };
    const { child, peer, stderr, exit } = spawnServer(["--stdio"], environment, fixture.cwd);
    await peer.request("connect", {});
    const created = await peer.request("session.create", { requestUserInput: true });
    const { sessionId } = created.result as { sessionId: string };
    fixture.model.enqueue(callingTools(["call_A", "ask_user", { question: "Which?" }]), {
      text: "Asked.",
    });
    await peer.request("session.send", { sessionId, prompt: "ask me" });
    const asked = await peer.waitFor((message) => message.method === "userInput.request");
    const answer = JSON.stringify({
      jsonrpc: "2.0",
      id: asked.id,
      result: { answer: "a".repeat(2 * LIMIT), wasFreeform: true },
    });
    const bytes = Buffer.byteLength(answer);
    peer.sendRaw(`Content-Length: ${bytes}\r\n\r\n${answer}`);
    await peer.waitFor((message) => eventOf(message)?.type === "session.idle");
    const reason = `the client's answer was ${bytes} bytes; the limit is ${LIMIT} bytes (TURNLOOP_MAX_MESSAGE_BYTES)`;
    const completed = peer.messages
      .map(eventOf)
      .find((event) => event?.type === "tool.execution_complete");
    expect(completed?.data).toMatchObject({
      toolCallId: "call_A",
      success: false,
      result: { content: `The user did not answer: ${reason}` },
    });
    const reply = peer.messages
      .map(eventOf)
      .find((event) => event?.type === "assistant.message" && event.data.content === "Asked.");
    expect(reply).toBeDefined();
    // Nothing was sent for it, and the connection goes on.
    expect(peer.messages.filter((message) => message.id === null)).toEqual([]);
    expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
      message: "pong: after",
    });
    expect(stderr()).toBe(`turnloop: ${reason}; request ${String(asked.id)} fails\n`);
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("a request over the limit is still a framing fault: answered with id null, and the connection closes", async () => {
    const environment = { ...fixture.env, TURNLOOP_MAX_MESSAGE_BYTES: String(LIMIT) };
    const { peer, exit } = spawnServer(["--stdio"], environment, fixture.cwd);
    await peer.request("connect", {});
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 5,
      method: "ping",
      params: { message: "p".repeat(2 * LIMIT) },
    });
    const bytes = Buffer.byteLength(body);
    peer.sendRaw(`Content-Length: ${bytes}\r\n\r\n${body}`);
    expect(await exit).toBe(0);
    expect(peer.messages.filter((message) => message.id !== 1)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: `unreadable frame: a ${bytes}-byte message is larger than the limit of ${LIMIT} bytes (TURNLOOP_MAX_MESSAGE_BYTES); closing the connection`,
        },
      },
    ]);
  });
});
