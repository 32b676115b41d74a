import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { StreamMessageReader } from "vscode-jsonrpc/node.js";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { FramedMessageWriter } from "../../src/protocol/framed-writer.js";
import { ClientConnection, type ServerContext } from "../../src/server/connection.js";
import { SessionClients } from "../../src/server/session-clients.js";
import type { SessionConfig } from "../../src/server/session-settings.js";
import { createEnvelope } from "../../src/session/envelope.js";
import { heldWritable } from "../support/held-writable.js";

const SESSION = "s-broadcast";
const event = (input: { type: string; data: object }): SessionEvent =>
  createEnvelope(input as EventInput, "019cfd9c-79b8-49f2-b681-c8ed962e0e55");

/** `session.event` of `wire` as the LSP base protocol frames it (UTF-8 length, blank line, JSON). */
const frame = (wire: object) => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    method: "session.event",
    params: { sessionId: SESSION, event: wire },
  });
  return `Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`;
};

/** An app's connection as the server makes it, its output recorded (nothing is read from it). */
function app() {
  const { target, writes } = heldWritable(1_048_576);
  const writer = new FramedMessageWriter(target);
  const server = { log: () => undefined } as unknown as ServerContext;
  const reader = new StreamMessageReader(new PassThrough());
  const connection = new ClientConnection(server, reader, writer, {}, () => undefined);
  return { connection, writer, received: () => writes.join("") };
}

describe("SessionClients.notify with several apps attached", () => {
  it("encodes each event once and sends every app the same bytes", async () => {
    const apps = [app(), app(), app()];
    const clients = new SessionClients();
    for (const one of apps) {
      clients.attach(one.connection, {} as SessionConfig);
    }
    // A reply with reasoning: Copilot's wire has an `assistant.reasoning` before it.
    const reply = event({
      type: "assistant.message",
      data: {
        messageId: "m-1",
        content: "Notes: one line — ✓",
        toolRequests: [],
        finishReason: "stop",
        reasoning: "Read it.",
      },
    });
    let encodings = 0;
    const wire = {
      toJSON: () => {
        encodings += 1;
        return reply;
      },
    };
    clients.notify(SESSION, reply, wire);
    await Promise.all(apps.map((one) => one.writer.flushed()));

    const [first, ...others] = apps.map((one) => one.received());
    const sent = String(first).split(/(?=Content-Length: )/);
    expect(sent).toHaveLength(2);
    const reasoning = JSON.parse(String(sent[0]).split("\r\n\r\n")[1] ?? "").params.event;
    expect(reasoning).toEqual({
      type: "assistant.reasoning",
      id: expect.any(String),
      timestamp: reply.timestamp,
      parentId: reply.parentId,
      data: { reasoningId: expect.any(String), content: "Read it." },
    });
    expect(first).toBe(frame(reasoning) + frame(reply));
    expect(others).toEqual([first, first]);
    expect(encodings).toBe(1);
  });

  it("sends a delta once encoded to the apps that stream it, none to an app that does not", async () => {
    const [streams, quiet, alsoStreams] = [app(), app(), app()];
    const clients = new SessionClients();
    clients.attach(streams.connection, {} as SessionConfig);
    clients.attach(quiet.connection, { streaming: false } as SessionConfig);
    clients.attach(alsoStreams.connection, { streaming: true } as SessionConfig);
    const delta = event({
      type: "assistant.message_delta",
      data: { messageId: "m-1", deltaContent: "Hé" },
    });
    const info = event({ type: "session.info", data: { infoType: "notification", message: "ok" } });
    clients.notify(SESSION, delta, delta);
    clients.notify(SESSION, info, info);
    await Promise.all([streams, quiet, alsoStreams].map((one) => one.writer.flushed()));
    expect(streams.received()).toBe(frame(delta) + frame(info));
    expect(alsoStreams.received()).toBe(frame(delta) + frame(info));
    expect(quiet.received()).toBe(frame(info));
  });

  it("tells every app the session is idle with the same bytes, its work not growing with the apps", async () => {
    /** `sendIdle` to `count` apps; @returns what each received and the reads of the idle's time. */
    const idleTo = async (count: number) => {
      const apps = Array.from({ length: count }, app);
      const clients = new SessionClients();
      for (const one of apps) {
        clients.attach(one.connection, {} as SessionConfig);
      }
      const idle = event({ type: "session.idle", data: { stopReason: "end_turn" } });
      const { timestamp } = idle;
      let reads = 0;
      Object.defineProperty(idle, "timestamp", {
        enumerable: true,
        get: () => {
          reads += 1;
          return timestamp;
        },
      });
      clients.sendIdle(SESSION, "2026-12-07T02:00:00.000Z", idle);
      await Promise.all(apps.map((one) => one.writer.flushed()));
      return { received: apps.map((one) => one.received()), reads, timestamp };
    };
    const one = await idleTo(1);
    const three = await idleTo(3);
    const [first, ...others] = three.received;
    expect(others).toEqual([first, first]);
    const messages = String(first)
      .split(/(?=Content-Length: )/)
      .map((framed) => JSON.parse(framed.split("\r\n\r\n")[1] ?? ""));
    expect(
      messages.map(({ method, params }) => [method, params.event?.type ?? params.type]),
    ).toEqual([
      ["session.event", "assistant.idle"],
      ["session.event", "session.idle"],
      ["session.lifecycle", "session.updated"],
    ]);
    expect(messages[1].params.event.data).toEqual({ stopReason: "end_turn", mode: "interactive" });
    expect(messages[2].params.metadata).toEqual({
      startTime: "2026-12-07T02:00:00.000Z",
      modifiedTime: three.timestamp,
    });
    expect(three.reads).toBe(one.reads);
  });
});
