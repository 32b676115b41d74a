import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { LIVE_ANSWER_TURN, LIVE_TOOL_CALL } from "../support/event-sequences.js";
import { test } from "../support/fixtures.js";

/** `turnloop -p` as a user sees turns: the JSON event stream, the summary line, exit codes. */

/** The variables that choose `model` (at the fake server), with a key for it. */
function modelVariables(model: string): NodeJS.ProcessEnv {
  return { TURNLOOP_MODEL: model, OPENAI_API_KEY: "test-key" };
}

interface Line {
  type: string;
  data: Record<string, unknown>;
  ephemeral?: true;
}

describe("turnloop -p and turns", () => {
  test("--output-format stream-json: a tool turn holds its tool, every event in order, with the cost", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    await writeFile(join(repository, "a.txt"), "hello\n");
    model.enqueue(
      {
        toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"a.txt"}' }],
        usage: { input: 1000, output: 100 },
      },
      { text: "It says hello.", usage: { input: 2000, output: 10 } },
    );
    const result = await cli(["-p", "read a.txt", "--output-format", "stream-json"], {
      env: modelVariables("openai-chat:gpt-4.1"),
    });
    expect(result.code).toBe(0);
    const printed = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line & Record<string, unknown>);
    const lines = printed.slice(0, -1);
    const summary = printed.at(-1);
    expect(lines.map((line) => line.type)).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      ...LIVE_TOOL_CALL,
      ...LIVE_ANSWER_TURN,
      "session.idle",
    ]);
    // gpt-4.1 costs $2 / $8 per million input / output tokens (the catalogue's price).
    const costs = lines
      .filter((line) => line.type === "assistant.usage")
      .map((line) => line.data.cost as number);
    expect(costs[0]).toBeCloseTo(1000 * 2e-6 + 100 * 8e-6, 12);
    expect(costs[1]).toBeCloseTo(2000 * 2e-6 + 10 * 8e-6, 12);
    // The result line last: two turns, the answer, and the sum of the turns' costs.
    expect(summary).toMatchObject({ type: "result", result: "It says hello.", num_turns: 2 });
    expect(summary?.total_cost_usd).toBeCloseTo((costs[0] ?? 0) + (costs[1] ?? 0), 12);
    expect(lines.filter((line) => line.ephemeral === true).map((line) => line.type)).toEqual([
      "assistant.tool_call_start",
      "tool.execution_running",
      "assistant.message_delta",
      "session.idle",
    ]);
    // The same persisted events are on disk.
    const sessionId = String(lines[0]?.data.sessionId);
    const disk = (await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as Line).type);
    expect(disk).toEqual(lines.filter((line) => line.ephemeral !== true).map((line) => line.type));
  });

  test("the summary line gives the cost when the model's price is known, and none otherwise", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "ok", usage: { input: 1000, output: 100 } });
    const priced = await cli(["-p", "hi"], { env: modelVariables("openai-chat:gpt-4.1") });
    expect(priced.code).toBe(0);
    expect(priced.stderr).toMatch(/1 turn · 1000 in \/ 100 out tokens · \$0\.0028 · \d+\.\d s/);

    model.enqueue({ text: "ok", usage: { input: 1000, output: 100 } });
    const unknown = await cli(["-p", "hi"], {
      env: modelVariables("openai-compatible:my-own-model"),
    });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toMatch(/1 turn · 1000 in \/ 100 out tokens · \d+\.\d s/);
    expect(unknown.stderr).not.toContain("$");
  });

  test("autopilot reaching its cap without task_complete says so and exits 2", async ({
    cli,
    model,
  }) => {
    model.setResponder(() => ({ text: "Still working." }));
    const result = await cli(
      ["-p", "finish the job", "--autopilot", "--max-autopilot-continues", "2"],
      { env: modelVariables("openai-compatible:fake-model") },
    );
    expect(result.code).toBe(2);
    expect(model.requests).toHaveLength(3);
    expect(result.stderr).toContain(
      "turnloop: stopped: autopilot reached --max-autopilot-continues and the task was not marked complete",
    );
  });

  test("autopilot ending with task_complete exits 0", async ({ cli, model }) => {
    model.enqueue({
      toolCalls: [{ id: "c1", name: "task_complete", arguments: '{"summary":"done"}' }],
    });
    const result = await cli(["-p", "finish the job", "--autopilot"], {
      env: modelVariables("openai-compatible:fake-model"),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("not marked complete");
  });
});
