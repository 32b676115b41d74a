/**
 * Round 3 session 44: straight after a turnloop process was killed (SIGKILL) mid-prompt, before
 * any reopen, `sessions show` said `[no stop recorded]` and the exports called the session
 * running, while nothing ran it any more. The lock tells a dead writer from a live one (no live
 * holder: session-lock.ts, stale rule): with none, every view says the prompt was interrupted, its
 * process ended, without writing to the log (reading never writes). With a live writer it is
 * running, as before. And a prompt the reopen ended reads as an interruption, not a server error.
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { runSessionsExport } from "../../src/cli/session-view/command.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import { PROMPT_INTERRUPTED } from "../../src/session/open-work.js";
import { logBytes, makeTemporaryDirectory, sessionStart, userMessage } from "../session/support.js";
import { CollectedText } from "../support/collected-text.js";

const SESSION_ID = "3f0c4a52-5b8e-4a36-9d3e-2c1f0e7a9b11";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A home holding one session whose process was killed while the model answered "count". */
async function killedMidPrompt(extra: object[] = []): Promise<{ home: string; folder: string }> {
  const home = await makeTemporaryDirectory();
  const folder = join(home, "session-state", SESSION_ID);
  await mkdir(folder, { recursive: true });
  const bytes = logBytes([
    sessionStart(SESSION_ID, home),
    userMessage("count"),
    { type: "assistant.turn_start", data: { turnId: "t1" } },
    ...(extra as never[]),
  ]);
  await writeFile(join(folder, "events.jsonl"), bytes);
  return { home, folder };
}

/** What `sessions show`, and the JSON and Markdown exports, say of the session. */
async function views(home: string) {
  vi.stubEnv("TURNLOOP_HOME", home);
  const shown = new CollectedText();
  const command = { kind: "sessions-show" as const, sessionId: SESSION_ID, json: false };
  expect(await runSessionsCommand(command, { stdout: shown, stderr: new CollectedText() })).toBe(0);
  const exported: Record<string, string> = {};
  for (const format of ["json", "markdown"] as const) {
    const stdout = new CollectedText();
    const io = { stdout, stderr: new CollectedText(), cwd: home, platform: process.platform };
    const env = { TURNLOOP_HOME: home };
    expect(await runSessionsExport({ sessionId: SESSION_ID, format }, { ...io, env })).toBe(0);
    exported[format] = stdout.text;
  }
  const json = JSON.parse(exported.json ?? "") as {
    summary: { running: boolean };
    prompts: Array<{ stopReason: string }>;
    turns: Array<{ status: string; tools: Array<{ status: string }> }>;
  };
  return {
    show: shown.text.split("\n").slice(1),
    running: json.summary.running,
    stops: json.prompts.map((prompt) => prompt.stopReason),
    turns: json.turns.map((turn) => ({
      status: turn.status,
      tools: turn.tools.map((tool) => tool.status),
    })),
    promptHeadings: (exported.markdown ?? "")
      .split("\n")
      .filter((line) => line.startsWith("## Prompt")),
  };
}

test("a prompt whose process was killed, before any reopen: every view says it was interrupted, and the log is left as it was", async () => {
  // Killed while its tool call ran: the turn and the call are interrupted too, as the reopen
  // will record them (verify 44: the exports called the turn `open`).
  const { home, folder } = await killedMidPrompt([
    {
      type: "assistant.message",
      data: {
        messageId: "m1",
        content: "",
        toolRequests: [{ toolCallId: "c1", name: "bash", arguments: { command: "sleep 60" } }],
        finishReason: "tool-calls",
      },
    },
    {
      type: "tool.execution_start",
      data: { toolCallId: "c1", toolName: "bash", arguments: { command: "sleep 60" } },
    },
  ]);
  const before = await readFile(join(folder, "events.jsonl"));
  expect(await views(home)).toEqual({
    show: [
      "",
      "> count",
      '→ bash(command: "sleep 60") … no result',
      "[stop: interrupted (its process ended; recorded when the session is next opened)]",
      "",
    ],
    running: false,
    stops: ["interrupted"],
    turns: [{ status: "interrupted", tools: ["interrupted"] }],
    promptHeadings: [
      "## Prompt 1 · interrupted (its process ended; recorded when the session is next opened)",
    ],
  });
  expect(await readFile(join(folder, "events.jsonl"))).toEqual(before);
});

test("a prompt whose writer is alive is running", async () => {
  const { home, folder } = await killedMidPrompt();
  const owner = {
    pid: process.pid,
    hostname: hostname(),
    command: "turnloop -p count",
    acquiredAt: new Date().toISOString(),
  };
  await writeFile(join(folder, "lock"), `${JSON.stringify(owner)}\n`);
  const seen = await views(home);
  expect({ show: seen.show, running: seen.running, stops: seen.stops, turns: seen.turns }).toEqual({
    show: ["", "> count", "[no stop recorded]", ""],
    running: true,
    stops: ["unfinished"],
    turns: [{ status: "open", tools: [] }],
  });
});

test("a prompt a reopen ended reads as an interruption, not a server error", async () => {
  const { home } = await killedMidPrompt([
    { type: "assistant.turn_end", data: { turnId: "t1", status: "interrupted" } },
    {
      type: "session.resume",
      data: { resumeTime: "2026-03-01T10:00:05.000Z", eventCount: 3, repaired: [] },
    },
    { type: "session.error", data: PROMPT_INTERRUPTED },
  ]);
  const seen = await views(home);
  expect(seen.show.join("\n")).not.toContain("error (server)");
  expect(seen.show).toContain(
    "the prompt was interrupted: the process running it ended before it finished (the session was reopened since)",
  );
});
