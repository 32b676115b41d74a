import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { eventsPath } from "../../src/session/paths.js";
import { announced, described, inProgress } from "./expected-updates.js";
import { AcpHarness, normalise } from "./support.js";

// A command that exits non-zero is a failed tool call on ACP, as on every face (issue 21): over the
// recorded session of test/golden/failed-command-events.jsonl, and live against the fake model.
// The editor gets the command's output and, when it did not exit 0, an `exit code N` line: never
// the `<exited with exit code N>` line the model reads.

const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const SESSION_ID = "f01d5e55-0000-4000-8000-000000000021";

const text = (value: string) => ({ type: "content", content: { type: "text", text: value } });
const chunk = (value: string, messageId: string) => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text: value },
  messageId,
});
const command = (toolCallId: string, value: string) => ({
  sessionUpdate: "tool_call",
  toolCallId,
  status: "pending",
  title: `Run ${value}`,
  kind: "execute",
  rawInput: { command: value },
  locations: [],
});

describe("a command exiting non-zero, on ACP", () => {
  test("session/load of the recorded session: the calls that exited 1 and 2 are failed, with their exit code", async () => {
    const harness = await AcpHarness.start();
    const log = (await readFile(GOLDEN, "utf8")).replace('"<cwd>"', JSON.stringify(harness.cwd));
    const path = eventsPath(harness.home, SESSION_ID);
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, log);
    await harness.loadSession(SESSION_ID);
    expect(normalise(harness.updates(SESSION_ID), harness.cwd)).toEqual([
      {
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: "Run the tests" },
        messageId: "message-1",
      },
      { sessionUpdate: "session_info_update", title: "Run the tests", updatedAt: "<time>" },
      chunk("Running them.", "message-2"),
      command("call_fail", "echo one; echo two; exit 1"),
      command("call_old", "false || exit 2"),
      command("call_ok", "echo fine"),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_fail",
        status: "failed",
        content: [text("one\ntwo\nexit code 1")],
        rawOutput: { outcome: "failed (exit code 1)" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_old",
        status: "failed",
        content: [text("exit code 2")],
        rawOutput: { outcome: "failed (exit code 2)" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_ok",
        status: "completed",
        content: [text("fine")],
      },
      chunk("The tests failed.", "message-3"),
      { sessionUpdate: "usage_update", used: 160, size: 128_000 },
    ]);
  });

  test.each([
    ["exits 1", "echo one; exit 1", "one\nexit code 1", "failed (exit code 1)"],
    [
      "is killed by a signal",
      "echo before; kill -KILL $$",
      "before\nkilled by SIGKILL",
      "killed by SIGKILL",
    ],
  ])(
    "live: a command that %s: its last update is failed, with its output and how it ended",
    async (_, command, shown, outcome) => {
      const harness = await AcpHarness.start();
      harness.server.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "It failed." },
      );
      const sessionId = await harness.newSession();
      expect(await harness.prompt(sessionId, "run it")).toEqual({ stopReason: "end_turn" });
      const calls = harness
        .updates(sessionId)
        .filter(
          (update) =>
            update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update",
        )
        // Output while the command runs comes at the throttle's pace (how many depends on timing).
        .filter((update) => !(update.sessionUpdate === "tool_call_update" && isPartial(update)));
      expect(normalise(calls, harness.cwd)).toEqual([
        announced("call_1", "bash", "execute"),
        described("call_1", `Run ${command}`, "execute", { command }),
        inProgress("call_1"),
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "call_1",
          status: "failed",
          content: [text(shown)],
          rawOutput: { outcome },
        },
      ]);
    },
  );
});

function isPartial(update: acp.ToolCallUpdate): boolean {
  return update.status === undefined && update.title === undefined && update.content !== undefined;
}
