import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type * as acp from "@agentclientprotocol/sdk";
import * as legacy from "acp-sdk-0.12";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { ChildFixture } from "./child-process.js";
import { AcpHarness } from "./support.js";

// Issue 17: usage_update became a stable update late. A client on SDK 0.12 (its example client
// sends no clientInfo) rejects every one as invalid params and logs it; it must not get any. A
// client that answers a notification with an error stops them after the first.

const fixture = ChildFixture.forEachTest();

const text = (value: string) => ({ type: "text", text: value });

describe("older ACP clients", () => {
  test("the SDK 0.12 client gets every update it knows and no usage_update to reject", async () => {
    fixture.server.enqueue({ text: "Hello there." }, { text: "Again." });
    const child = spawn(process.execPath, [CLI_PATH, "acp"], {
      cwd: fixture.cwd,
      env: fixture.environment(),
    });
    const exited = new Promise((resolve) => child.on("close", resolve));
    const updates: unknown[] = [];
    const rejected: unknown[] = [];
    const originalError = console.error;
    // The 0.12 connection reports an update it cannot parse with console.error and goes on.
    console.error = (...values: unknown[]) => {
      rejected.push(values);
    };
    try {
      const connection = new legacy.ClientSideConnection(
        () => ({
          requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: async (params) => {
            updates.push(params.update);
          },
        }),
        legacy.ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
        ),
      );
      // What the 0.12 example client sends.
      await connection.initialize({
        protocolVersion: legacy.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      });
      const { sessionId } = await connection.newSession({ cwd: fixture.cwd, mcpServers: [] });
      expect(await connection.prompt({ sessionId, prompt: [text("hi")] })).toEqual({
        stopReason: "end_turn",
      });
      expect(await connection.prompt({ sessionId, prompt: [text("again")] })).toEqual({
        stopReason: "end_turn",
      });
    } finally {
      console.error = originalError;
      child.stdin.end();
      await exited;
    }
    expect(rejected).toEqual([]);
    expect(updates.map(withoutVolatile)).toEqual([
      expect.objectContaining({ sessionUpdate: "available_commands_update" }),
      { sessionUpdate: "session_info_update", title: "hi", updatedAt: "<time>" },
      // 0.12 drops the messageId it does not know.
      { sessionUpdate: "agent_message_chunk", content: text("Hello there.") },
      { sessionUpdate: "agent_message_chunk", content: text("Again.") },
    ]);
  });

  test("a client that answers a usage_update with an error gets no more of them", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "One." }, { text: "Two." });
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "first");
    expect(harness.updates(sessionId).filter(isUsage)).toHaveLength(1);
    // How a client refuses a notification on the wire: an error answer without an id.
    harness.sendRaw(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params"}}\n',
    );
    await harness.prompt(sessionId, "second");
    expect(harness.updates(sessionId).filter(isUsage)).toHaveLength(1);
    expect(harness.updates(sessionId).map((update) => update.sessionUpdate)).toEqual([
      "available_commands_update",
      "session_info_update",
      "agent_message_chunk",
      "usage_update",
      "agent_message_chunk",
    ]);
    expect(harness.stderr.join("\n")).toContain("usage_update is no longer sent");
  });
});

function isUsage(update: acp.SessionUpdate): boolean {
  return update.sessionUpdate === "usage_update";
}

function withoutVolatile(update: unknown): unknown {
  const record = { ...(update as Record<string, unknown>) };
  if (typeof record.updatedAt === "string") {
    record.updatedAt = "<time>";
  }
  return record;
}
