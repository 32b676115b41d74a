import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { NO_TERMINAL_DEFAULTS } from "../../src/session/command-environment.js";
import { AcpHarness, requestMessages } from "./support.js";

const EDITOR: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};

function callsOf(current: AcpHarness, method: string): unknown[] {
  return current.behaviour.calls
    .filter((call) => call.method === method)
    .map((call) => call.params);
}

/** The `terminal/*` methods the agent called, in order. */
function terminalMethods(current: AcpHarness): string[] {
  return current.behaviour.calls
    .map((call) => call.method)
    .filter((method) => method.startsWith("terminal/"));
}

function finalUpdate(current: AcpHarness, toolCallId: string): acp.SessionUpdate | undefined {
  return current
    .updates()
    .filter((update) => update.sessionUpdate === "tool_call_update")
    .filter((update) => update.toolCallId === toolCallId && update.status != null)
    .at(-1);
}

describe("a client that offers fs and terminals", () => {
  test("reads its buffers, writes through it with a diff, runs commands in its terminals", async () => {
    const harness = await AcpHarness.start({ offer: EDITOR, face: { allowAllTools: true } });
    const path = join(harness.cwd, "a.txt");
    await writeFile(path, "on disk\n");
    harness.behaviour.buffers.set(path, "in the editor\n");
    harness.server.enqueue(
      { toolCalls: [{ id: "call_V", name: "view", arguments: '{"path":"a.txt"}' }] },
      {
        toolCalls: [
          {
            id: "call_E",
            name: "edit",
            arguments: JSON.stringify({
              path: "a.txt",
              old_str: "in the editor",
              new_str: "edited",
            }),
          },
        ],
      },
      {
        toolCalls: [
          { id: "call_C", name: "create", arguments: '{"path":"b.txt","file_text":"new\\n"}' },
        ],
      },
      {
        toolCalls: [
          { id: "call_B", name: "bash", arguments: '{"command":"echo out; echo err >&2; exit 3"}' },
        ],
      },
      { text: "done" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "edit and run")).toEqual({ stopReason: "end_turn" });

    // view read the editor's buffer, not the disk.
    expect(callsOf(harness, "fs/read_text_file")).toContainEqual({ sessionId, path });
    expect(requestMessages(harness.server, 1).at(-1)?.content).toBe("1. in the editor");

    // edit and create wrote through the client, and their updates are diffs.
    expect(callsOf(harness, "fs/write_text_file")).toEqual([
      { sessionId, path, content: "edited\n" },
      { sessionId, path: join(harness.cwd, "b.txt"), content: "new\n" },
    ]);
    expect(finalUpdate(harness, "call_E")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_E",
      status: "completed",
      // The whole file, as the editor's buffer held it (ACP diff content: whole-file text).
      content: [{ type: "diff", path, oldText: "in the editor\n", newText: "edited\n" }],
    });
    expect(finalUpdate(harness, "call_C")).toMatchObject({
      content: [
        { type: "diff", path: join(harness.cwd, "b.txt"), oldText: null, newText: "new\n" },
      ],
    });

    // bash ran in a client terminal: create → wait → output → release; the updates embed it.
    expect(callsOf(harness, "terminal/create")).toEqual([
      {
        sessionId,
        command: "bash",
        // The editor variables are set by the command where the terminal lacks them.
        args: [
          "-c",
          'for name in GIT_EDITOR GIT_SEQUENCE_EDITOR VISUAL EDITOR; do [ -v "$name" ] || export "$name=$TURNLOOP_NO_EDITOR"; done; unset TURNLOOP_NO_EDITOR; exec bash -c "$1"',
          "bash",
          "echo out; echo err >&2; exit 3",
        ],
        cwd: harness.cwd,
        env: [
          { name: "PAGER", value: "cat" },
          { name: "GIT_PAGER", value: "cat" },
          { name: "GIT_TERMINAL_PROMPT", value: "0" },
          { name: "TURNLOOP_NO_EDITOR", value: NO_TERMINAL_DEFAULTS.EDITOR },
        ],
        outputByteLimit: 1_000_000,
      },
    ]);
    expect(terminalMethods(harness)).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/output",
      "terminal/release",
    ]);
    const terminalContent = [{ type: "terminal", terminalId: "term-1" }];
    expect(harness.updates()).toContainEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_B",
      content: terminalContent,
    });
    expect(finalUpdate(harness, "call_B")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_B",
      // The command exited 3: failed, as on every face (the session model's one rule); the
      // terminal shows its output, and `exit code 3` follows it as text, as a local run's does.
      status: "failed",
      content: [
        ...terminalContent,
        { type: "content", content: { type: "text", text: "exit code 3" } },
      ],
      rawOutput: { output: "out\nerr", exitCode: 3, outcome: "failed (exit code 3)" },
    });
    expect(requestMessages(harness.server, 4).at(-1)?.content).toMatch(
      /<exited with exit code 3>$/,
    );
  });

  test("cancel during a terminal command kills and releases it, and the answer is cancelled", async () => {
    const harness = await AcpHarness.start({ offer: EDITOR, face: { allowAllTools: true } });
    harness.server.enqueue({
      toolCalls: [
        { id: "call_S", name: "bash", arguments: '{"command":"sleep 30; touch late.txt"}' },
      ],
    });
    const sessionId = await harness.newSession();
    const running = harness.prompt(sessionId, "wait");
    // The agent waits for the command's exit: the cancel finds the command running.
    await harness.waitForWire((entry) => entry.message.method === "terminal/wait_for_exit");
    await harness.cancel(sessionId);
    expect(await running).toEqual({ stopReason: "cancelled" });
    const methods = harness.behaviour.calls.map((call) => call.method);
    expect(methods).toContain("terminal/kill");
    expect(methods.at(-1)).toBe("terminal/release");
    expect(finalUpdate(harness, "call_S")).toMatchObject({ status: "failed" });
    expect(existsSync(join(harness.cwd, "late.txt"))).toBe(false);
  });

  test("a terminal's long output: the dropped start is noted, the rest cut like a local run and saved", async () => {
    const harness = await AcpHarness.start({ offer: EDITOR, face: { allowAllTools: true } });
    harness.server.enqueue(
      { toolCalls: [{ id: "call_L", name: "bash", arguments: '{"command":"seq 1 300000"}' }] },
      { text: "done" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "count")).toEqual({ stopReason: "end_turn" });
    // The client keeps the last 1,000,000 bytes (outputByteLimit); the model gets the head and
    // tail of those, and the file all of them.
    const whole = `${Array.from({ length: 300_000 }, (_, index) => index + 1).join("\n")}\n`;
    const kept = whole.slice(-1_000_000);
    const saved = join(harness.home, "session-state", sessionId, "tool-outputs", "call_L.txt");
    // Head (12,000 characters) and tail (18,000) cut on line boundaries (trial 37 F5).
    const firstPart = kept.slice(0, 12_000);
    const head = firstPart.slice(0, firstPart.lastIndexOf("\n") + 1);
    const lastPart = kept.slice(-18_001);
    const tail = lastPart.slice(lastPart.indexOf("\n") + 1);
    const lines = kept.slice(head.length, -tail.length).split("\n").length - 1;
    const omitted = kept.length - head.length - tail.length;
    expect(requestMessages(harness.server, 1).at(-1)?.content).toBe(
      "[The terminal kept only the end of the output; earlier output was dropped.]\n" +
        `${head}\n[… ${lines.toLocaleString("en-US")} lines (${omitted} bytes) omitted; full output saved to ${saved}]\n` +
        `${tail}<exited with exit code 0>`,
    );
    expect(await readFile(saved, "utf8")).toBe(kept);
  });

  test("a terminal command past its timeout is killed and released, and the model is told", async () => {
    const harness = await AcpHarness.start({ offer: EDITOR, face: { allowAllTools: true } });
    harness.server.enqueue(
      {
        toolCalls: [
          {
            id: "call_T",
            name: "bash",
            arguments: '{"command":"echo begun; sleep 30","timeout":0.5}',
          },
        ],
      },
      { text: "done" },
    );
    const sessionId = await harness.newSession();
    expect(await harness.prompt(sessionId, "wait")).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(harness.server, 1).at(-1)?.content).toBe(
      "begun\nCommand timed out after 0.5 s; the client stopped it.",
    );
    expect(terminalMethods(harness)).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/output",
      "terminal/release",
    ]);
    expect(finalUpdate(harness, "call_T")).toMatchObject({ status: "failed" });
  });

  test("without the capabilities, tools use the disk and never call the client", async () => {
    const harness = await AcpHarness.start({ face: { allowAllTools: true } });
    await writeFile(join(harness.cwd, "a.txt"), "disk\n");
    harness.server.enqueue(
      {
        toolCalls: [
          {
            id: "call_E",
            name: "edit",
            arguments: JSON.stringify({ path: "a.txt", old_str: "disk", new_str: "changed" }),
          },
        ],
      },
      { text: "done" },
    );
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "edit");
    expect(await readFile(join(harness.cwd, "a.txt"), "utf8")).toBe("changed\n");
    expect(harness.behaviour.calls).toEqual([]);
  });
});
