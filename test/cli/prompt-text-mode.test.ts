import { describe, expect } from "vitest";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type CliFixtures, test } from "../support/fixtures.js";
import { updatePlanCall } from "../support/plan.js";

// `out=$(turnloop -p …)`: in text mode stdout is the final answer alone; the narration of earlier
// replies, the plan as a checklist and the tool lines are progress on stderr (issue 24 items 2, 9).

test.override({ git: true });

function run(cli: CliFixtures["cli"], extra: string[] = []) {
  return cli(["-p", "fix it", "--allow-all-tools", ...extra]);
}

/** A plan, the same plan again, a command, the plan with progress, then the answer. */
function enqueueWork(model: FakeModelServer): void {
  model.enqueue(
    {
      text: "I'll plan it first.",
      toolCalls: [updatePlanCall("p1", ["in_progress", "pending", "pending"])],
    },
    { toolCalls: [updatePlanCall("p2", ["in_progress", "pending", "pending"])] },
    {
      text: "Running the tests.",
      toolCalls: [{ id: "b1", name: "bash", arguments: '{"command":"echo ok"}' }],
    },
    { toolCalls: [updatePlanCall("p3", ["completed", "completed", "in_progress"])] },
    { text: "Fixed: the loop was off by one." },
  );
}

/** stderr's lines, durations replaced by N, without the closing summary (checked apart). */
function progress(stderr: string): { lines: string[]; summary: string | undefined } {
  const lines = stderr
    .trimEnd()
    .split("\n")
    .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
  return { lines: lines.slice(0, -1), summary: lines.at(-1) };
}

describe("-p in text mode", () => {
  test("stdout is exactly the final answer; the narration, the plan as a checklist when it changes and the tool lines are on stderr", async ({
    cli,
    model,
  }) => {
    enqueueWork(model);
    const result = await run(cli);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Fixed: the loop was off by one.\n");
    const { lines, summary } = progress(result.stderr);
    expect(lines).toEqual([
      "I'll plan it first.",
      "plan:",
      "  ◐ Find the bug",
      "  ☐ Fix it",
      "  ☐ Run the tests",
      "Running the tests.",
      "✓ bash echo ok (N ms)",
      "plan:",
      "  ☑ Find the bug",
      "  ☑ Fix it",
      "  ◐ Run the tests",
    ]);
    expect(summary).toMatch(/^5 turns · .* · session [0-9a-f-]{36}$/);
    expect(result.stderr).not.toContain("update_plan");
  });

  test("--verbose keeps every reply on stdout as it streams; the progress lines stay on stderr", async ({
    cli,
    model,
  }) => {
    enqueueWork(model);
    const result = await run(cli, ["--verbose"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "I'll plan it first.\n\nRunning the tests.\n\nFixed: the loop was off by one.\n",
    );
    expect(progress(result.stderr).lines).toEqual([
      "plan:",
      "  ◐ Find the bug",
      "  ☐ Fix it",
      "  ☐ Run the tests",
      "✓ bash echo ok (N ms)",
      "plan:",
      "  ☑ Find the bug",
      "  ☑ Fix it",
      "  ◐ Run the tests",
    ]);
  });

  test("autopilot: a reply followed by the nudge is progress; the task_complete reply's text is the answer", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      { text: "Looked around." },
      {
        text: "All fixed.",
        toolCalls: [{ id: "t1", name: "task_complete", arguments: '{"summary":"fixed"}' }],
      },
    );
    const result = await run(cli, ["--autopilot"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("All fixed.\n");
    expect(progress(result.stderr).lines).toEqual([
      "Looked around.",
      "autopilot: continuing",
      "All fixed.",
      "✓ task_complete summary=fixed (N ms)",
      "task complete: fixed",
    ]);
  });

  test("autopilot: a task_complete call with no text gives its summary as the answer, in text and JSON (trial finding 6)", async ({
    cli,
    model,
  }) => {
    const call = { id: "t1", name: "task_complete", arguments: '{"summary":"all done"}' };
    model.enqueue({ toolCalls: [call] }, { toolCalls: [call] });
    const text = await run(cli, ["--autopilot"]);
    expect(text).toMatchObject({ code: 0, stdout: "all done\n" });
    expect(progress(text.stderr).lines).toEqual([
      "✓ task_complete summary=all done (N ms)",
      "task complete: all done",
    ]);
    const json = await run(cli, ["--autopilot", "--output-format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ result: "all done", subtype: "success" });
  });

  test("a failed update_plan shows its tool line with the reason, not a checklist", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "p1", name: "update_plan", arguments: '{"entries":"none"}' }] },
      { text: "Sorry." },
    );
    const result = await run(cli);
    expect(result.stdout).toBe("Sorry.\n");
    const { lines } = progress(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^✗ update_plan /);
  });
});
