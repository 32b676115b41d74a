import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

// Session 38 left the views of one log reading it two ways: `sessions view` and `sessions export`
// titled every model request "Turn N" (a retried attempt was a turn of its own, the summary
// counted requests as turns), while -p's summary counts turns by the one rule
// (session/usage-totals.ts). One log, made by a real run, read by every view: each says the
// same of each turn and each tool call (a command exiting 1 is ✗ everywhere).

/** What a view says of the log: its turns (titles and count) and each tool call's outcome. */
interface Reading {
  turns: number;
  turnTitles?: string[];
  calls: Array<[string, "✓" | "✗"]>;
}

const mark = (success: boolean) => (success ? "✓" : "✗");

test("one recorded log reads alike in -p, sessions show, export markdown and json (the view's model)", async () => {
  const server = await startFakeModelServer();
  const home = await makeHome("turnloop-fold-home-");
  const repository = await mkdtemp(join(tmpdir(), "turnloop-fold-repo-"));
  onTestFinished(async () => {
    await server.close();
    await removeTree(home);
    await removeTree(repository);
  });
  await writeFile(join(repository, "notes.txt"), "one\n");
  execFileSync("git", ["init", "-q"], { cwd: repository });
  server.enqueue(
    { status: 500, body: { error: { message: "upstream overloaded" } } },
    {
      toolCalls: [
        { id: "call_view", name: "view", arguments: '{"path":"notes.txt"}' },
        { id: "call_false", name: "bash", arguments: '{"command":"echo no; exit 1"}' },
      ],
    },
    { text: "The command failed." },
  );
  const run = await runCli(["-p", "look", "--allow-all-tools"], {
    cwd: repository,
    env: cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      TURNLOOP_RETRY_BASE_DELAY_MS: "5",
    }),
  });
  expect(run.code).toBe(0);
  const sessionId = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
  const env = cleanEnvironment({ TURNLOOP_HOME: home });
  const cli = (args: string[]) => runCli(["sessions", ...args], { cwd: home, env });

  const printed: Reading = {
    turns: Number(/^(\d+) turns · 1 retry ·/m.exec(run.stderr)?.[1]),
    calls: [...run.stderr.matchAll(/^([✓✗]) (\w+) /gm)].map(
      ([, outcome, name]) => [name ?? "", outcome as "✓" | "✗"] as [string, "✓" | "✗"],
    ),
  };
  const show = await cli(["show", sessionId]);
  const shown: Reading = {
    // `sessions show` draws no turns; its retry line is the one mark of the failed attempt.
    turns: printed.turns,
    calls: [...show.stdout.matchAll(/^→ (\w+)\(.*\) ([✓✗])/gm)].map(
      ([, name, outcome]) => [name ?? "", outcome as "✓" | "✗"] as [string, "✓" | "✗"],
    ),
  };
  expect(show.stdout).toContain("↻ retry 1");
  const markdown = (await cli(["export", sessionId, "--format", "markdown"])).stdout;
  const exported: Reading = {
    turns: Number(/^\| turns \| (\d+) \(3 requests\) \|$/m.exec(markdown)?.[1]),
    turnTitles: [...markdown.matchAll(/^### (Turn [^·]+) ·/gm)].map(
      ([, title]) => title?.trim() ?? "",
    ),
    calls: [...markdown.matchAll(/^#### `(\w+)` · (\w+)/gm)].map(
      ([, name, status]) => [name ?? "", mark(status === "success")] as [string, "✓" | "✗"],
    ),
  };
  const out = join(home, "export.json");
  expect((await cli(["export", sessionId, "--format", "json", "--out", out])).code).toBe(0);
  const view = JSON.parse(await readFile(out, "utf8")) as {
    summary: { turns: number; requests: number };
    turns: Array<{ title: string; tools: Array<{ name: string; status: string }> }>;
  };
  const viewed: Reading = {
    turns: view.summary.turns,
    turnTitles: view.turns.map((turn) => turn.title),
    calls: view.turns.flatMap((turn) =>
      turn.tools.map((tool) => [tool.name, mark(tool.status === "success")] as [string, "✓" | "✗"]),
    ),
  };
  const expected: Reading = {
    turns: 2,
    calls: [
      ["view", "✓"],
      ["bash", "✗"],
    ],
  };
  const titles = ["Turn 1, attempt 1", "Turn 1, attempt 2", "Turn 2"];
  expect({ printed, shown, exported, viewed }).toEqual({
    printed: expected,
    shown: expected,
    exported: { ...expected, turnTitles: titles },
    viewed: { ...expected, turnTitles: titles },
  });
  expect(view.summary.requests).toBe(3);
}, 60_000);
