import type { ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  CONTEXT_ERRORS,
  isSummaryRequest,
  limitedModel,
  requestTokens,
  viewEachFile,
} from "../support/context-limit.js";
import { printedSessionId, test } from "../support/fixtures.js";

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);

const WINDOW = 8_000;

test.beforeEach(async ({ repository }) => {
  for (let file = 1; file <= 6; file++) {
    const line = `file-${file} holds this line of text.\n`;
    await writeFile(
      join(repository, `file-${file}.txt`),
      line.repeat(Math.ceil(6_144 / line.length)),
    );
  }
});

/** No retries: a failed summary request fails at once. */
const NO_RETRIES = { TURNLOOP_MAX_RETRIES: "0" };

const prompt = (text: string, ...flags: string[]) => [
  "-p",
  text,
  "--context-window",
  String(WINDOW),
  ...flags,
];

describe("compaction in turnloop -p", () => {
  test("case 33 A: one dim stderr line per compaction, and the answer", async ({ cli, model }) => {
    model.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
    const result = await cli(prompt("read all files and summarize"), { env: NO_RETRIES });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("finished\n");
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("compacted"));
    expect(lines.length).toBe(model.requests.filter(isSummaryRequest).length);
    expect(lines[0]).toMatch(/^compacted the conversation \(threshold\): \d+ → \d+ tokens$/);
    expect(model.requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
  });

  // A trial of session 21's build (round 3, session 22, #1): a second rejection for length after
  // the replay of the first had been answered ended the prompt, naming two different windows.
  test("a server with a smaller window than turnloop believes: each rejection after a reply is compacted and replayed", async ({
    cli,
    model,
  }) => {
    model.setResponder(limitedModel({ limit: 5_000, conversation: viewEachFile }));
    const result = await cli(["-p", "read all files and summarize"], { env: NO_RETRIES });
    expect(result.stderr).not.toMatch(/exhausted/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("finished\n");
    const compactions = result.stderr.split("\n").filter((line) => line.startsWith("compacted"));
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const line of compactions) {
      expect(line).toMatch(
        /^compacted the conversation \(context_limit_retry\): \d+ → \d+ tokens$/,
      );
    }
    const statuses = model.requests.map((request) => request.status);
    // Every rejected request is followed by a summary request and its replay, which is answered.
    statuses.forEach((status, index) => {
      if (status === 400) {
        expect(isSummaryRequest(model.requests[index + 1])).toBe(true);
        expect(statuses.slice(index + 1, index + 3)).toEqual([200, 200]);
      }
    });
    expect(statuses.filter((status) => status === 400).length).toBe(compactions.length);
  });

  test("the config files' contextWindows set the window when no flag does", async ({
    cli,
    model,
    home,
  }) => {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ contextWindows: { "openai-compatible:fake-model": WINDOW } }),
    );
    model.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
    const result = await cli(["-p", "read all files and summarize"], { env: NO_RETRIES });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^compacted the conversation \(threshold\)/m);
    expect(model.requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
  });

  test("case 33 B: exit 1 with the context-exhausted error", async ({ cli, model }) => {
    model.setResponder(
      limitedModel({
        limit: WINDOW,
        conversation: viewEachFile,
        summary: () => CONTEXT_ERRORS.openai(9_000, WINDOW),
      }),
    );
    const result = await cli(prompt("read all files and summarize"), { env: NO_RETRIES });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /compaction failed \(threshold\): the summary request failed twice/,
    );
    expect(result.stderr).toMatch(/^turnloop: The context is exhausted/m);
  });

  // A trial of session 23's build (round 3, session 24, #5): with a window smaller than the
  // system prompt and the tools, every request went out over it and nothing was said. Since
  // trial 45 (F1) such a prompt is refused before anything is stored or sent (exit 3), as a
  // prompt too large for the window is (test/cli/prompt-too-large.test.ts).
  test("a window the system prompt and tools alone fill: the prompt is refused before any request, naming both", async ({
    cli,
    model,
  }) => {
    const result = await cli(["-p", "hello", "--context-window", "1000"], { env: NO_RETRIES });
    expect([result.code, result.stdout, model.requests.length]).toEqual([3, "", 0]);
    expect(result.stderr).toMatch(
      /^turnloop: the system prompt and the \d+ tool definitions alone take about (\d+) tokens, more than the context window of openai-compatible:fake-model, 1000 tokens, before any prompt; nothing was sent\./m,
    );
    const fixed = Number(/about (\d+) tokens, more/.exec(result.stderr)?.[1]);
    expect(fixed).toBeGreaterThanOrEqual(1000);
    expect((await cli(["sessions", "--json"])).stdout.trim()).toBe("[]");
    model.enqueue({ text: "hello again" });
    const larger = await cli(["-p", "hello", "--context-window", "32000"], { env: NO_RETRIES });
    expect([larger.code, larger.stdout]).toEqual([0, "hello again\n"]);
  });

  test("case 33 D: a warning on stderr when the server counts far fewer prompt tokens", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "I have no tools", usage: { input: 2_048, output: 5 } });
    const long = `read all files and summarize\n${"some pasted log line\n".repeat(2_800)}`;
    const result = await cli(["-p", long, "--context-window", "32000"], { env: NO_RETRIES });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^turnloop: warning: The server counted 2048 prompt tokens/m);
  });

  // The session-28 trial (#4): the warning came again after every prompt of a continued session.
  test("case 33 D: the warning is said once per session and model, again for another model that cuts", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    const cut = { usage: { input: 2_048, output: 5 } };
    model.enqueue({ text: "one", ...cut }, { text: "two", ...cut }, { text: "three", ...cut });
    const long = `read all files and summarize\n${"some pasted log line\n".repeat(2_800)}`;
    const flags = ["--context-window", "32000"];
    const first = await cli(["-p", long, ...flags], { env: NO_RETRIES });
    const sessionId = printedSessionId(first.stderr);
    const again = await cli(["-p", "again", "-c", ...flags], { env: NO_RETRIES });
    const other = ["--model", "openai-compatible:other-model"];
    const switched = await cli(["-p", "again", "-c", ...flags, ...other], { env: NO_RETRIES });
    const warned = (stderr: string) => /^turnloop: warning: The server counted/m.test(stderr);
    expect(
      [first, again, switched].map((run) => [run.code, run.stdout, warned(run.stderr)]),
    ).toEqual([
      [0, "one\n", true],
      [0, "two\n", false],
      [0, "three\n", true],
    ]);
    const warnings = (await loggedEvents(sessionId)).filter(
      (event) => event.type === "session.warning",
    );
    expect(warnings.map((event) => (event.data as { warningType: string }).warningType)).toEqual([
      "prompt_truncated",
      "prompt_truncated",
    ]);
  });

  test("sessions compact <id> [instructions] compacts a stored session", async ({ cli, model }) => {
    model.enqueue({ text: LONG_ANSWER }, { text: "two" }, { text: "Task: count." });
    const first = await cli(["-p", "first"], { env: NO_RETRIES });
    const sessionId = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", sessionId], { env: NO_RETRIES });
    const result = await cli(["sessions", "compact", sessionId, "keep", "the", "numbers"], {
      env: NO_RETRIES,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      new RegExp(`^compacted ${sessionId}: \\d+ → \\d+ tokens, 3 messages summarised\\n$`),
    );
    expect(JSON.stringify(model.requests[2]?.body)).toContain("keep the numbers");
    const again = await cli(["sessions", "compact", "no-such-session"], { env: NO_RETRIES });
    // An id that names no session is a usage error (test/cli/session-prefix.test.ts).
    expect(again.code).toBe(64);
  });

  // A trial of session 17's build (round 3, session 18, #3): a summary longer than the messages
  // it replaced was kept, and the context grew. It is discarded, and every face says so.
  test("a summary that would not shrink the context is discarded: said, exit 1, the next prompt sees the whole conversation", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" }, { text: `Task: ${"count. ".repeat(400)}` });
    const first = await cli(["-p", "first"], { env: NO_RETRIES });
    const sessionId = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", sessionId], { env: NO_RETRIES });
    const result = await cli(["sessions", "compact", sessionId], { env: NO_RETRIES });
    expect([result.code, result.stdout]).toEqual([1, ""]);
    expect(result.stderr).toMatch(
      /^turnloop: compaction failed: the summary would not make the context smaller \(about (\d+) tokens before, (\d+) with it\): the conversation is kept as it was\n$/,
    );
    const [, before, after] = /about (\d+) tokens before, (\d+)/.exec(result.stderr) ?? [];
    expect(Number(after)).toBeGreaterThanOrEqual(Number(before));
    model.enqueue({ text: "three" });
    const third = await cli(["-p", "third", "--resume", sessionId], { env: NO_RETRIES });
    expect(third.code, third.stderr).toBe(0);
    const sent = JSON.stringify(model.requests.at(-1)?.body);
    expect(sent).toContain("first");
    expect(sent).not.toContain("count. count.");
  });

  // A fresh user's trial: Ctrl-C during `sessions compact` exited 130 with nothing said.
  test("Ctrl-C during sessions compact: said cancelled, exit 130, and show says so too", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "one" }, { text: "two" });
    const first = await cli(["-p", "first"], { env: NO_RETRIES });
    const sessionId = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", sessionId], { env: NO_RETRIES });
    let child: ChildProcess | undefined;
    // The gate: the summary request has arrived, so the compaction is running.
    model.setResponder(() => {
      child?.kill("SIGINT");
      return { raw: [{ hold: true }] };
    });
    const cancelled = await cli(["sessions", "compact", sessionId], {
      env: NO_RETRIES,
      onStart: (started) => {
        child = started;
      },
    });
    expect(cancelled).toMatchObject({
      code: 130,
      stdout: "",
      stderr: `turnloop: compaction of ${sessionId} cancelled; the conversation is unchanged\n`,
    });
    const shown = await cli(["sessions", "show", sessionId]);
    const lines = shown.stdout
      .replace(/— resumed \S+/g, "— resumed T")
      .split("\n")
      .slice(1);
    expect(lines).toEqual([
      ...["", "> first", "one", "[stop: end_turn]", "", "— resumed T"],
      // The compaction's reopen did nothing else: its line says what it did, no "resumed".
      ...["", "> second", "two", "[stop: end_turn]"],
      // Set apart from the prompt before it: the user started it between prompts.
      "",
      "— compaction · manual, between prompts: turnloop sessions compact, /compact or an app's session.history.compact",
      "compaction cancelled: the conversation is unchanged",
      "",
    ]);
  });

  test("kill -9 during a compaction: the session resumes and continues validly", async ({
    cli,
    model,
    home,
    loggedEvents,
  }) => {
    let child: ChildProcess | undefined;
    let killed = false;
    const conversation = limitedModel({ limit: WINDOW, conversation: viewEachFile });
    model.setResponder((request) => {
      if (!killed && isSummaryRequest(request)) {
        killed = true;
        child?.kill("SIGKILL");
        return { raw: [{ hold: true }] };
      }
      return conversation(request);
    });
    const crashed = await cli(prompt("read all files and summarize"), {
      env: NO_RETRIES,
      onStart: (started) => {
        child = started;
      },
    });
    expect(crashed.signal).toBe("SIGKILL");
    const [sessionId] = (await import("node:fs")).readdirSync(join(home, "session-state"));
    if (sessionId === undefined) {
      throw new Error("no session on disk");
    }
    const before = await loggedEvents(sessionId);
    expect(before.at(-1)?.type).toBe("assistant.turn_start");
    const sent = model.requests.length;
    const resumed = await cli(prompt("go on", "--resume", sessionId), { env: NO_RETRIES });
    expect(resumed.code).toBe(0);
    const after = model.requests.slice(sent);
    expect(after.map((request) => request.status).every((status) => status === 200)).toBe(true);
    expect(after.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
    const events = await loggedEvents(sessionId);
    const starts = events.filter((event) => event.type === "session.compaction_start");
    const completes = events.filter((event) => event.type === "session.compaction_complete");
    // The killed compaction left a start and nothing else: the resume closed it as interrupted
    // (with its summary turn), and the resumed prompt compacted anew.
    expect(completes.length).toBeGreaterThanOrEqual(2);
    expect(starts).toHaveLength(completes.length);
    expect(completes.map((event) => [event.data.success, event.data.error])).toEqual([
      [false, "interrupted: the process running it ended before it finished"],
      ...completes.slice(1).map(() => [true, undefined]),
    ]);
    const resume = events.find((event) => event.type === "session.resume");
    expect(resume?.data).toMatchObject({
      interruptedTurns: 1,
      interruptedCompactions: 1,
      notice:
        "repaired the session log: closed 1 turn and 1 compaction left open when its process ended, as interrupted",
    });
    expect(resumed.stdout).toBe("finished\n");
  });
});
