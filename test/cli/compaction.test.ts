import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import {
  CONTEXT_ERRORS,
  isSummaryRequest,
  limitedModel,
  requestTokens,
} from "../support/context-limit.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer, Reply } from "../support/fake-model-types.js";

const WINDOW = 8_000;
let server: FakeModelServer;
let home: string;
let cwd: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-cli-home-"));
  cwd = await mkdtemp(join(tmpdir(), "turnloop-cli-cwd-"));
  for (let file = 1; file <= 6; file++) {
    const line = `file-${file} holds this line of text.\n`;
    await writeFile(join(cwd, `file-${file}.txt`), line.repeat(Math.ceil(6_144 / line.length)));
  }
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
});

const environment = () =>
  cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
    TURNLOOP_MAX_RETRIES: "0",
  });

function viewAll(index: number): Reply {
  return index < 6
    ? {
        toolCalls: [
          { id: `call-${index + 1}`, name: "view", arguments: `{"path":"file-${index + 1}.txt"}` },
        ],
      }
    : { text: "finished" };
}

const prompt = (text: string, ...flags: string[]) => [
  "-p",
  text,
  "--context-window",
  String(WINDOW),
  ...flags,
];

async function persisted(sessionId: string): Promise<SessionEvent[]> {
  const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);
}

function sessionIdOf(stderr: string): string {
  const match = /session ([0-9a-f-]{36})/.exec(stderr);
  if (match?.[1] === undefined) {
    throw new Error(`no session id in: ${stderr}`);
  }
  return match[1];
}

describe("compaction in turnloop -p", () => {
  test("case 33 A: one dim stderr line per compaction, and the answer", async () => {
    server.setResponder(limitedModel({ limit: WINDOW, conversation: viewAll }));
    const result = await runCli(prompt("read all files and summarize"), {
      cwd,
      env: environment(),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("finished\n");
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("compacted"));
    expect(lines.length).toBe(server.requests.filter(isSummaryRequest).length);
    expect(lines[0]).toMatch(/^compacted the conversation \(threshold\): \d+ → \d+ tokens$/);
    expect(server.requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
  });

  test("the config files' contextWindows set the window when no flag does", async () => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ contextWindows: { "openai-compatible:fake-model": WINDOW } }),
    );
    server.setResponder(limitedModel({ limit: WINDOW, conversation: viewAll }));
    const result = await runCli(["-p", "read all files and summarize"], {
      cwd,
      env: environment(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^compacted the conversation \(threshold\)/m);
    expect(server.requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
  });

  test("case 33 B: exit 1 with the context-exhausted error", async () => {
    server.setResponder(
      limitedModel({
        limit: WINDOW,
        conversation: viewAll,
        summary: () => CONTEXT_ERRORS.openai(9_000, WINDOW),
      }),
    );
    const result = await runCli(prompt("read all files and summarize"), {
      cwd,
      env: environment(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /compaction failed \(threshold\): the summary request failed twice/,
    );
    expect(result.stderr).toMatch(/error: The context is exhausted/);
  });

  test("case 33 D: a warning on stderr when the server counts far fewer prompt tokens", async () => {
    server.enqueue({ text: "I have no tools", usage: { input: 2_048, output: 5 } });
    const long = `read all files and summarize\n${"some pasted log line\n".repeat(2_800)}`;
    const result = await runCli(["-p", long, "--context-window", "32000"], {
      cwd,
      env: environment(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: The server counted 2048 prompt tokens/m);
  });

  test("sessions compact <id> [instructions] compacts a stored session", async () => {
    server.enqueue({ text: "one" }, { text: "two" }, { text: "Task: count." });
    const first = await runCli(["-p", "first"], { cwd, env: environment() });
    const sessionId = sessionIdOf(first.stderr);
    await runCli(["-p", "second", "--resume", sessionId], { cwd, env: environment() });
    const result = await runCli(["sessions", "compact", sessionId, "keep", "the", "numbers"], {
      cwd,
      env: environment(),
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      new RegExp(`^compacted ${sessionId}: \\d+ → \\d+ tokens, 3 messages summarised\\n$`),
    );
    expect(JSON.stringify(server.requests[2]?.body)).toContain("keep the numbers");
    const again = await runCli(["sessions", "compact", "no-such-session"], {
      cwd,
      env: environment(),
    });
    expect(again.code).toBe(1);
  });

  test("kill -9 during a compaction: the session resumes and continues validly", async () => {
    let child: ChildProcess | undefined;
    let killed = false;
    const conversation = limitedModel({ limit: WINDOW, conversation: viewAll });
    server.setResponder((request) => {
      if (!killed && isSummaryRequest(request)) {
        killed = true;
        child?.kill("SIGKILL");
        return { raw: [{ hold: true }] };
      }
      return conversation(request);
    });
    const crashed = await runCli(prompt("read all files and summarize"), {
      cwd,
      env: environment(),
      onStart: (started) => {
        child = started;
      },
    });
    expect(crashed.signal).toBe("SIGKILL");
    const [sessionId] = (await import("node:fs")).readdirSync(join(home, "session-state"));
    if (sessionId === undefined) {
      throw new Error("no session on disk");
    }
    const before = await persisted(sessionId);
    expect(before.at(-1)?.type).toBe("assistant.turn_start");
    const sent = server.requests.length;
    const resumed = await runCli(prompt("go on", "--resume", sessionId), {
      cwd,
      env: environment(),
    });
    expect(resumed.code).toBe(0);
    const after = server.requests.slice(sent);
    expect(after.map((request) => request.status).every((status) => status === 200)).toBe(true);
    expect(after.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
    const events = await persisted(sessionId);
    const starts = events.filter((event) => event.type === "session.compaction_start");
    const completes = events.filter((event) => event.type === "session.compaction_complete");
    // The killed compaction left a start and nothing else; the resumed prompt compacted anew.
    expect(completes.length).toBeGreaterThanOrEqual(1);
    expect(starts).toHaveLength(completes.length + 1);
    expect(completes.every((event) => event.data.success)).toBe(true);
    expect(resumed.stdout).toBe("finished\n");
  });
});
