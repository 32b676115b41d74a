/**
 * A tool call of an *earlier* turn left without a result (its `tool.execution_complete` line
 * damaged, as a torn write or an edited import leaves it) gets its interrupted result at the next
 * resume, once and stored, placed after its own reply: the provider, which rejects a request
 * whose `tool_calls` id has no tool message (OpenAI's rule, checked by the fake model), answers
 * every later prompt (README: "a tool call left without a result gets an interrupted result"; a
 * fresh user's trial, bench/notes/trial.md item 2).
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

describe("a tool call of an earlier turn without a result", () => {
  test("gets one stored interrupted result at resume; every later prompt is answered", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo one"}' }] },
      { text: "first done" },
      { text: "second done" },
    );
    const first = await cli(["-p", "first", "--allow-all-tools"]);
    expect(first.code, first.stderr).toBe(0);
    const sessionId = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    const second = await cli(["-p", "second", "--resume", sessionId]);
    expect(second.code, second.stderr).toBe(0);

    // The first turn's result line is damaged: its call is left without a result.
    const logPath = join(home, "session-state", sessionId, "events.jsonl");
    const lines = (await readFile(logPath, "utf8")).split("\n");
    const result = lines.findIndex((line) => line.includes('"tool.execution_complete"'));
    expect(result).toBeGreaterThan(0);
    lines[result] = '{"type":"tool.execution_complete","data":{"toolCa';
    await writeFile(logPath, lines.join("\n"));

    model.enqueue({ text: "third done" }, { text: "fourth done" });
    const third = await cli(["-p", "third", "--resume", sessionId]);
    expect({ code: third.code, stdout: third.stdout }).toEqual({ code: 0, stdout: "third done\n" });
    const fourth = await cli(["-p", "fourth", "--resume", sessionId]);
    expect({ code: fourth.code, stdout: fourth.stdout }).toEqual({
      code: 0,
      stdout: "fourth done\n",
    });

    // The call's result stands right after its reply, in both later requests.
    const interrupted =
      "Interrupted: turnloop stopped before the tool call's result was recorded; it may have run, in part or in full.";
    for (const index of [-2, -1]) {
      const view = chatMessages(model, index).map((message) => ({
        role: message.role,
        ...(message.role === "tool"
          ? { toolCallId: message.tool_call_id, content: String(message.content) }
          : {}),
      }));
      expect(view.slice(0, 5)).toEqual([
        { role: "system" },
        { role: "user" },
        { role: "assistant" },
        { role: "tool", toolCallId: "call_1", content: interrupted },
        { role: "assistant" },
      ]);
    }
    // The damaged line stays as it is (nothing is lost); the others parse.
    const results = (await readFile(logPath, "utf8"))
      .split("\n")
      .filter((line) => line.startsWith('{"type":"tool.execution_complete"') && line.endsWith("}"))
      .map((line) => JSON.parse(line) as { data: Record<string, unknown> });
    expect(results.map((event) => [event.data.toolCallId, event.data.error])).toEqual([
      ["call_1", { code: "interrupted", message: interrupted }],
    ]);
  });
});
