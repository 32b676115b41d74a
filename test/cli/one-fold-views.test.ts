import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { approveAll, CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { expect, onTestFinished, test } from "vitest";
import { AcpChild } from "../acp/child-process.js";
import { CLI_PATH, cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

// Session 38 left the views of one log reading it two ways: `sessions view` and `sessions export`
// titled every model request "Turn N" (a retried attempt was a turn of its own, the summary
// counted requests as turns), while -p's summary counts turns by the one rule
// (session/usage-totals.ts). One log, made by a real run, read by every view: each says the
// same of each turn and each tool call (a command exiting 1 is ✗ everywhere). Session 40 adds
// the editor's and the app's readings of the same log: ACP's `session/load` replay and the
// Copilot SDK's session events after `resumeSession`; every face also says which request was
// retried and why. Session 41: and how long it waited, in the same words (a 5 ms wait read
// `retrying in 0.0 s` in -p and ACP, `in 5 ms` in `sessions show`).

/**
 * What a view says of the log: its turns (titles and count; ACP and the SDK count none), each
 * tool call's outcome, and each retried request (its attempt number and the server's words).
 */
interface Reading {
  turns?: number;
  turnTitles?: string[];
  calls: Array<[string, "✓" | "✗"]>;
  retries: Array<[number, string]>;
  /** Each retry's wait as the view words it (the app reads its `delayMs`, a number). */
  waits: string[];
}

const mark = (success: boolean) => (success ? "✓" : "✗");

/**
 * What an app reads in the server's session events: a call's name from its start, its outcome
 * from its completion's `success`; a retry from `assistant.retry`, an event turnloop adds to
 * Copilot's (README, "Apps written for @github/copilot-sdk"), read here as the JSON it is.
 */
function appReading(events: ReadonlyArray<{ type: string; data: unknown }>): Reading {
  const names = new Map<string, string>();
  const reading: Reading = { calls: [], retries: [], waits: [] };
  for (const { type, data } of events as Array<{ type: string; data: Record<string, unknown> }>) {
    const id = String(data.toolCallId);
    if (type === "tool.execution_start") {
      names.set(id, String(data.toolName));
    } else if (type === "tool.execution_complete") {
      reading.calls.push([names.get(id) ?? "?", mark(data.success === true)]);
    } else if (type === "assistant.retry") {
      reading.retries.push([Number(data.attempt), String(data.errorMessage)]);
      reading.waits.push(`${Number(data.delayMs)} ms`);
    }
  }
  return reading;
}

/** Each match of `pattern` in `text` as [attempt, message]. */
function retriesIn(text: string, pattern: RegExp): Array<[number, string]> {
  return [...text.matchAll(pattern)].map(([, attempt, message]) => [
    Number(attempt),
    message ?? "",
  ]);
}

/** Each match's group 1 in `text`: a retry's wait as a view words it. */
function waitsIn(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map(([, wait]) => wait ?? "");
}

/** ACP names no tool: a call reads by its kind (src/acp, README "ACP"), here view and bash. */
const TOOL_OF_KIND: Record<string, string> = { read: "view", execute: "bash" };

/** What ACP's `session/load` replay says: each call's last status, each retry's thought. */
function acpReading(updates: readonly acp.SessionUpdate[]): Reading {
  const calls = new Map<string, [string, "✓" | "✗"]>();
  let thoughts = "";
  for (const update of updates) {
    if (update.sessionUpdate === "tool_call") {
      calls.set(update.toolCallId, [TOOL_OF_KIND[update.kind ?? ""] ?? "?", "✗"]);
    } else if (update.sessionUpdate === "tool_call_update" && update.status !== undefined) {
      const [name] = calls.get(update.toolCallId) ?? ["?"];
      calls.set(update.toolCallId, [name, mark(update.status === "completed")]);
    } else if (update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text") {
      thoughts += update.content.text;
    }
  }
  const retries = retriesIn(thoughts, /^⟳ retrying in \S+ \S+ \(attempt (\d+)\): (.*)$/gm);
  const waits = waitsIn(thoughts, /^⟳ retrying in (\S+ \S+) \(attempt/gm);
  return { calls: [...calls.values()], retries, waits };
}

/** The editor's reading: `session/load` replays the log as updates (the load appends a reopen only). */
async function editorReading(
  env: NodeJS.ProcessEnv,
  cwd: string,
  sessionId: string,
): Promise<Reading> {
  const editor = new AcpChild(env, cwd);
  onTestFinished(() => editor.kill());
  await editor.initialize();
  await editor.loadSession(sessionId);
  const reading = acpReading(editor.updates(sessionId));
  expect(await editor.end()).toBe(0);
  return reading;
}

/** The app's reading: the Copilot SDK resumes the session and reads the server's events. */
async function appReadingAfterResume(
  env: NodeJS.ProcessEnv,
  cwd: string,
  sessionId: string,
): Promise<Reading> {
  const appEnv = Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])),
  );
  const client = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: appEnv, args: [] }),
    workingDirectory: cwd,
  });
  onTestFinished(() => client.forceStop());
  await client.start();
  const resumed = await client.resumeSession(sessionId, { onPermissionRequest: approveAll });
  return appReading(await resumed.getEvents());
}

test("one recorded log reads alike in -p, sessions show, export markdown and json, ACP's replay and the SDK's events", async () => {
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
  // The faces that can take a prompt (-p, ACP, the SDK's server) are given the model.
  const modelEnv = cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
    TURNLOOP_RETRY_BASE_DELAY_MS: "5",
  });
  const run = await runCli(["-p", "look", "--allow-all-tools"], { cwd: repository, env: modelEnv });
  expect(run.code).toBe(0);
  const sessionId = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
  const env = cleanEnvironment({ TURNLOOP_HOME: home });
  const cli = (args: string[]) => runCli(["sessions", ...args], { cwd: home, env });

  const printed: Reading = {
    turns: Number(/^(\d+) turns · 1 retry ·/m.exec(run.stderr)?.[1]),
    calls: [...run.stderr.matchAll(/^([✓✗]) (\w+) /gm)].map(
      ([, outcome, name]) => [name ?? "", outcome as "✓" | "✗"] as [string, "✓" | "✗"],
    ),
    retries: retriesIn(
      run.stderr,
      /^turnloop: warning: retrying in \S+ \S+ \(attempt (\d+)\): (.*)$/gm,
    ),
    waits: waitsIn(run.stderr, /^turnloop: warning: retrying in (\S+ \S+) \(attempt/gm),
  };
  const show = await cli(["show", sessionId]);
  const shown: Reading = {
    // `sessions show` draws no turns; its retry line is the one mark of the failed attempt.
    turns: printed.turns,
    calls: [...show.stdout.matchAll(/^→ (\w+)\(.*\) ([✓✗])/gm)].map(
      ([, name, outcome]) => [name ?? "", outcome as "✓" | "✗"] as [string, "✓" | "✗"],
    ),
    retries: retriesIn(show.stdout, /^↻ retry (\d+) in \S+ \S+: (.*)$/gm),
    waits: waitsIn(show.stdout, /^↻ retry \d+ in (\S+ \S+): /gm),
  };
  const markdown = (await cli(["export", sessionId, "--format", "markdown"])).stdout;
  const exported: Reading = {
    turns: Number(/^\| turns \| (\d+) \(3 requests\) \|$/m.exec(markdown)?.[1]),
    turnTitles: [...markdown.matchAll(/^### (Turn [^·]+) ·/gm)].map(
      ([, title]) => title?.trim() ?? "",
    ),
    calls: [...markdown.matchAll(/^#### `(\w+)` · (\w+)/gm)].map(
      ([, name, status]) => [name ?? "", mark(status === "success")] as [string, "✓" | "✗"],
    ),
    retries: retriesIn(markdown, /^- \*\*retry\*\* at \+\d+ ms: retry (\d+): (.*)$/gm),
    waits: waitsIn(markdown, /^waited (.+)$/gm),
  };
  const out = join(home, "export.json");
  expect((await cli(["export", sessionId, "--format", "json", "--out", out])).code).toBe(0);
  const view = JSON.parse(await readFile(out, "utf8")) as {
    summary: { turns: number; requests: number };
    turns: Array<{
      title: string;
      tools: Array<{ name: string; status: string }>;
      marks: Array<{ kind: string; text: string; detail?: string }>;
    }>;
  };
  const viewed: Reading = {
    turns: view.summary.turns,
    turnTitles: view.turns.map((turn) => turn.title),
    calls: view.turns.flatMap((turn) =>
      turn.tools.map((tool) => [tool.name, mark(tool.status === "success")] as [string, "✓" | "✗"]),
    ),
    retries: view.turns.flatMap((turn) =>
      turn.marks
        .filter((marked) => marked.kind === "retry")
        .flatMap((marked) => retriesIn(marked.text, /^retry (\d+): (.*)$/g)),
    ),
    waits: view.turns.flatMap((turn) =>
      turn.marks.flatMap((marked) => waitsIn(marked.detail ?? "", /^waited (.+)$/g)),
    ),
  };

  const replayed = await editorReading(modelEnv, repository, sessionId);
  const app = await appReadingAfterResume(modelEnv, repository, sessionId);
  // The wait recorded (the base delay's 5 ms, jittered): below a second, in whole ms.
  expect(app.waits).toEqual([expect.stringMatching(/^\d+ ms$/)]);
  const expected: Reading = {
    calls: [
      ["view", "✓"],
      ["bash", "✗"],
    ],
    retries: [[1, "HTTP 500: upstream overloaded"]],
    waits: app.waits,
  };
  const titles = ["Turn 1, attempt 1", "Turn 1, attempt 2", "Turn 2"];
  expect({ printed, shown, exported, viewed, replayed, app }).toEqual({
    printed: { ...expected, turns: 2 },
    shown: { ...expected, turns: 2 },
    exported: { ...expected, turns: 2, turnTitles: titles },
    viewed: { ...expected, turns: 2, turnTitles: titles },
    replayed: expected,
    app: expected,
  });
  expect(view.summary.requests).toBe(3);
}, 90_000);
