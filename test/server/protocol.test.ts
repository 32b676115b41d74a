import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { eventsPath } from "../../src/session/paths.js";
import { fixtureForFile } from "../sdk/support.js";
import { spawnServer } from "./raw-peer.js";

const fixture = fixtureForFile();

describe("turnloop --headless --stdio on the wire", () => {
  test("bad input gets JSON-RPC errors, never a crash; stdout carries only frames", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    const connected = await peer.request("connect", { token: "ignored on stdio" });
    expect(connected.result).toEqual({
      ok: true,
      protocolVersion: 3,
      version: "0.1.0",
      taskKinds: [],
    });
    peer.sendRaw("Content-Length: 9\r\n\r\n{not json");
    peer.sendFrame({ hello: "not JSON-RPC" });
    peer.sendFrame([1, 2, 3]);
    peer.sendFrame({ jsonrpc: "2.0", method: "no.such.notification", params: {} });
    const unknown = await peer.request("session.fly", { sessionId: "x" });
    expect(unknown.error).toEqual({ code: -32601, message: "Unknown method: session.fly" });
    const badSend = await peer.request("session.send", { sessionId: "../etc", prompt: 3 });
    expect(badSend.error?.code).toBe(-32602);
    expect(badSend.error?.message).toBe(
      `session.send: sessionId must be letters, digits, '-' or '_' (at most 128), e.g. a UUID, not "../etc"; prompt must be a string, not 3`,
    );
    const positional = await peer.request("session.create", ["openai-chat:x"]);
    expect(positional.error?.message).toBe(
      'session.create: the params must be an object, not ["openai-chat:x"]',
    );
    const missing = await peer.request("session.abort");
    expect(missing.error?.code).toBe(-32602);
    const notOpen = await peer.request("session.send", { sessionId: "abc", prompt: "hi" });
    expect(notOpen.error).toEqual({
      code: -32602,
      message: "Session not found: abc (it is not open in this server: create or resume it)",
    });
    const badTool = await peer.request("session.create", {
      tools: [{ name: "bash", description: "mine" }],
    });
    expect(badTool.error?.message).toBe(
      'session.create: tools[0] "bash" clashes with a built-in tool: rename it or set overridesBuiltInTool',
    );
    const ping = await peer.request("ping", { message: "still here" });
    expect(ping.result).toMatchObject({ message: "pong: still here", protocolVersion: 3 });
    expect(peer.garbage).toBe("");
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("getMessages tells a missing session from a log that cannot be read", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const missing = await peer.request("session.getMessages", { sessionId: "no-such-session" });
    expect(missing.error).toEqual({
      code: -32602,
      message: "session.getMessages: no session no-such-session",
    });
    // A log that exists but cannot be read (here a folder where the file should be).
    await mkdir(eventsPath(fixture.home, "unreadable-session"), { recursive: true });
    const unreadable = await peer.request("session.getMessages", {
      sessionId: "unreadable-session",
    });
    expect(unreadable.error?.code).toBe(-32603);
    expect(unreadable.error?.message).toMatch(
      /^session\.getMessages: the log of session unreadable-session cannot be read \(EISDIR/,
    );
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("session.getMetadata answers a damaged session's session.list entry, its problem included", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    // A log with no readable session.start: listed with a problem rather than left out.
    await mkdir(join(fixture.home, "session-state", "damaged-session"), { recursive: true });
    await writeFile(eventsPath(fixture.home, "damaged-session"), "{torn\n");
    const listed = await peer.request("session.list", {});
    const sessions = (listed.result as { sessions: Array<{ sessionId: string }> }).sessions;
    const entry = sessions.find((session) => session.sessionId === "damaged-session");
    expect(entry).toMatchObject({ problem: "events.jsonl has no readable session.start" });
    const metadata = await peer.request("session.getMetadata", { sessionId: "damaged-session" });
    expect(metadata.result).toEqual({ session: entry });
    child.stdin.end();
    expect(await exit).toBe(0);
  });

  test("two session.resume requests at once share one open: both answered, one session.resume", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const created = await peer.request("session.create", {});
    const { sessionId } = created.result as { sessionId: string };
    expect((await peer.request("session.detach", { sessionId })).error).toBeUndefined();
    const answers = await Promise.all([
      peer.request("session.resume", { sessionId }),
      peer.request("session.resume", { sessionId }),
    ]);
    expect(
      answers.map((answer) => [answer.error, (answer.result as { sessionId?: string }).sessionId]),
    ).toEqual([
      [undefined, sessionId],
      [undefined, sessionId],
    ]);
    child.stdin.end();
    expect(await exit).toBe(0);
    const log = await readEventLog(eventsPath(fixture.home, sessionId));
    // Each close records session.shutdown.
    expect(log.events.map((event) => event.type)).toEqual([
      "session.start",
      "session.shutdown",
      "session.resume",
      "session.shutdown",
    ]);
  });

  test("a dead connection cancels its prompt and the log ends consistently", async () => {
    const { child, peer, exit } = spawnServer(["--stdio"], fixture.env, fixture.cwd);
    await peer.request("connect", {});
    const created = await peer.request("session.create", { allowAllTools: true });
    const { sessionId } = created.result as { sessionId: string };
    fixture.model.enqueue({
      toolCalls: [{ id: "call_z", name: "bash", arguments: '{"command":"echo go; sleep 30"}' }],
    });
    await peer.request("session.send", { sessionId, prompt: "sleep" });
    await peer.waitFor(
      (message) =>
        (message.params as { event?: { type: string } })?.event?.type ===
        "tool.execution_partial_result",
    );
    child.stdin.end();
    expect(await exit).toBe(0);
    const log = await readEventLog(eventsPath(fixture.home, sessionId));
    expect(log.repaired).toEqual([]);
    expect(log.events.map((event) => event.type).slice(-5)).toEqual([
      "tool.execution_start",
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
      "session.shutdown",
    ]);
    expect(log.events.at(-3)).toMatchObject({ data: { status: "cancelled" } });
    expect(log.events.at(-4)).toMatchObject({
      data: { toolCallId: "call_z", success: false, error: { code: "cancelled" } },
    });
  });
});
