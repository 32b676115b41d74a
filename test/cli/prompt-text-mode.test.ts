import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { updatePlanCall } from "../support/plan.js";

// `out=$(turnloop -p …)`: in text mode stdout is the final answer alone; the narration of earlier
// replies, the plan as a checklist and the tool lines are progress on stderr (issue 24 items 2, 9).

let server: FakeModelServer;
let home: string;
let repository: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-text-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-text-repo-"));
  execFileSync("git", ["init", "-q"], { cwd: repository });
});

afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

function run(extra: string[] = []) {
  return runCli(["-p", "fix it", "--allow-all-tools", ...extra], {
    cwd: repository,
    env: cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    }),
  });
}

/** A plan, the same plan again, a command, the plan with progress, then the answer. */
function enqueueWork(): void {
  server.enqueue(
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
    .map((line) => line.replace(/\(\d+ ms\)/, "(N ms)"));
  return { lines: lines.slice(0, -1), summary: lines.at(-1) };
}

describe("-p in text mode", () => {
  test("stdout is exactly the final answer; the narration, the plan as a checklist when it changes and the tool lines are on stderr", async () => {
    enqueueWork();
    const result = await run();
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

  test("--verbose keeps every reply on stdout as it streams; the progress lines stay on stderr", async () => {
    enqueueWork();
    const result = await run(["--verbose"]);
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

  test("autopilot: a reply followed by the nudge is progress; the task_complete reply's text is the answer", async () => {
    server.enqueue(
      { text: "Looked around." },
      {
        text: "All fixed.",
        toolCalls: [{ id: "t1", name: "task_complete", arguments: '{"summary":"fixed"}' }],
      },
    );
    const result = await run(["--autopilot"]);
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

  test("a failed update_plan shows its tool line with the reason, not a checklist", async () => {
    server.enqueue(
      { toolCalls: [{ id: "p1", name: "update_plan", arguments: '{"entries":"none"}' }] },
      { text: "Sorry." },
    );
    const result = await run();
    expect(result.stdout).toBe("Sorry.\n");
    const { lines } = progress(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^✗ update_plan /);
  });
});
