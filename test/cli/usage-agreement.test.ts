import type { ChildProcess } from "node:child_process";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { LoggedEvent } from "../support/fixtures.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { type InteractiveFixture, interactiveTest } from "./interactive-support.js";

// Trial of session 25's build: `/usage` counted the requests that reported usage ("model
// requests: 2") where `-p`'s summary and the JSON result counted every request ("3 turns",
// `num_turns: 3`), a failed attempt included. Session 37's closing note: one prompt whose only
// request was retried once read "2 turns (2 failed)". One rule now (src/session/usage-totals.ts):
// a turn is a request the session kept, a failed attempt sent again is a retry, said apart;
// tokens and cost the sums of `assistant.usage`.

/** Retried once, at once; a window the first prompt's last reported usage fills past 80 %. */
const ENV = { TURNLOOP_MAX_RETRIES: "1", TURNLOOP_RETRY_BASE_DELAY_MS: "1" };
const WINDOW = ["--context-window", "8000"];

/** What a face said about one prompt (or a session): turns, their details, retries, tokens. */
interface Counts {
  turns: number;
  details: string;
  retries: number;
  input: number;
  output: number;
}

/**
 * The counts of `events` straight from the log, no code of ours: the requests (`grep -c
 * assistant.turn_start`) but the failed attempts an `assistant.retry` names, and the retries.
 */
function logCounts(events: readonly LoggedEvent[]): Counts {
  const retries = events.filter((event) => event.type === "assistant.retry");
  const retried = new Set(retries.map((event) => event.data.turnId));
  const kept = (event: LoggedEvent) => !retried.has(event.data.turnId);
  const ended = (status: string) =>
    events.filter(
      (event) => event.type === "assistant.turn_end" && event.data.status === status && kept(event),
    );
  const starts = events.filter((event) => event.type === "assistant.turn_start" && kept(event));
  const compactions = starts.filter((event) => event.data.purpose === "compaction");
  const details = [
    ...(ended("failed").length > 0 ? [`${ended("failed").length} failed`] : []),
    ...(ended("cancelled").length > 0 ? [`${ended("cancelled").length} cancelled`] : []),
    ...(compactions.length > 0 ? [`${compactions.length} compaction`] : []),
  ].join(", ");
  const usage = events.filter((event) => event.type === "assistant.usage");
  const sum = (key: string) => usage.reduce((total, event) => total + Number(event.data[key]), 0);
  return {
    turns: starts.length,
    details,
    retries: retries.length,
    input: sum("inputTokens"),
    output: sum("outputTokens"),
  };
}

/** The log's events of each prompt: from its `user.message` to the next one. */
function byPrompt(events: readonly LoggedEvent[]): LoggedEvent[][] {
  const prompts: LoggedEvent[][] = [];
  for (const event of events) {
    if (event.type === "user.message") {
      prompts.push([]);
    }
    prompts.at(-1)?.push(event);
  }
  return prompts;
}

/** The counts of `-p`'s summary line (its last stderr line); tokens not reported count 0. */
function summaryCounts(stderr: string): Counts {
  const line = (stderr.trimEnd().split("\n").at(-1) ?? "").replace(
    "tokens not reported",
    "0 in / 0 out tokens",
  );
  const match =
    /^(\d+) turns?(?: \(([^)]*)\))?(?: · (\d+) retr(?:y|ies))? · (\d+) in \/ (\d+) out tokens · /.exec(
      line,
    );
  expect(match, line).not.toBeNull();
  const [, turns, details, retries, input, output] = match ?? [];
  return {
    turns: Number(turns),
    details: details ?? "",
    retries: Number(retries ?? 0),
    input: Number(input),
    output: Number(output),
  };
}

/**
 * The counts of a JSON result (a count left out as not reported: 0); `details` and `retries`
 * from the log, which the object has no room for.
 */
function resultCounts(stdout: string, log: Counts): Counts & { sessionId: string } {
  const result = JSON.parse(stdout) as {
    num_turns: number;
    session_id: string;
    usage: { input_tokens?: number; output_tokens?: number };
  };
  return {
    turns: result.num_turns,
    details: log.details,
    retries: log.retries,
    input: result.usage.input_tokens ?? 0,
    output: result.usage.output_tokens ?? 0,
    sessionId: result.session_id,
  };
}

/** Sends SIGINT once the fake model has received `count` requests (the held reply's included). */
function interruptAtRequest(fixture: InteractiveFixture, count: number) {
  return (child: ChildProcess) => {
    const poll = setInterval(() => {
      if (fixture.server.requests.length >= count) {
        clearInterval(poll);
        child.kill("SIGINT");
      }
    }, 20);
  };
}

/**
 * Four prompts with `-p` (text, or `--output-format json`): a failed attempt retried, a tool
 * turn and the answer; a compaction (the last reply's usage fills the window) and the answer; a
 * reply cancelled by Ctrl-C; a request that failed, was retried and failed again (the prompt's
 * error). Resolves to each prompt's stdout and stderr and the session id.
 */
async function runScenario(fixture: InteractiveFixture, json: boolean) {
  const { server, repository } = fixture;
  const flags = [...WINDOW, ...(json ? ["--output-format", "json"] : [])];
  const run = (args: string[], onStart?: (child: ChildProcess) => void) =>
    runCli([...args, ...flags], {
      cwd: repository,
      env: fixture.environment(ENV),
      ...(onStart === undefined ? {} : { onStart }),
    });
  const view = JSON.stringify({ path: "notes.md" });
  server.enqueue(
    { status: 500, body: { error: { message: "overloaded" } } },
    {
      toolCalls: [{ id: "call_1", name: "view", arguments: view }],
      usage: { input: 900, output: 9 },
    },
    { text: "The launch is on Tuesday.", usage: { input: 7000, output: 12 } },
  );
  const first = await run(["-p", "when is the launch?"]);
  expect(first.code, first.stderr).toBe(0);
  const sessionId = json
    ? (JSON.parse(first.stdout) as { session_id: string }).session_id
    : (/session ([0-9a-f-]{36})\n$/.exec(first.stderr)?.[1] ?? "");
  server.enqueue(
    { text: "Task: know the launch day. Done: read notes.md.", usage: { input: 400, output: 30 } },
    { text: "Noted.", usage: { input: 500, output: 3 } },
  );
  const second = await run(["-p", "thanks", "--resume", sessionId]);
  expect(second.code, second.stderr).toBe(0);
  const held = new Promise<void>(() => undefined);
  server.enqueue({ text: ["Let me", " think"], pause: { afterEvents: 1, until: held } });
  const third = await run(
    ["-p", "and then?", "--resume", sessionId],
    interruptAtRequest(fixture, server.requests.length + 1),
  );
  expect(third.code, third.stderr).toBe(130);
  const overloaded = { status: 500, body: { error: { message: "overloaded" } } };
  server.enqueue(overloaded, overloaded);
  const fourth = await run(["-p", "and now?", "--resume", sessionId]);
  expect(fourth.code, fourth.stderr).toBe(1);
  return { sessionId, prompts: [first, second, third, fourth] };
}

/** `/usage`'s rows on the screen (the command and its four lines). */
function usageRows(screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.lastIndexOf("/usage");
  return rows.slice(start, start + 5);
}

describe.skipIf(tmuxMissing())("requests, tokens and cost: one count on every face", () => {
  interactiveTest(
    "a session with a retry, tool turns, a compaction and a cancel: -p's summary, the JSON result and /usage agree with the log",
    async ({ fixture }) => {
      const text = await runScenario(fixture, false);
      const json = await runScenario(fixture, true);
      const textLog = await fixture.events(text.sessionId);
      const jsonLog = await fixture.events(json.sessionId);
      // Both sessions made the same requests: a retried one that then answered, a compaction,
      // a cancelled one, one retried that failed again.
      expect(logCounts(textLog)).toEqual(logCounts(jsonLog));
      expect(logCounts(textLog)).toEqual({
        turns: 6,
        details: "1 failed, 1 cancelled, 1 compaction",
        retries: 2,
        input: 8800,
        output: 54,
      });
      // `turnloop sessions` lists each session with its turns by the same rule.
      const listing = await runCli(["sessions"], {
        cwd: fixture.repository,
        env: fixture.environment(ENV),
      });
      expect(listing.code, listing.stderr).toBe(0);
      for (const sessionId of [text.sessionId, json.sessionId]) {
        const line = listing.stdout.split("\n").find((row) => row.startsWith(sessionId));
        expect(line).toMatch(/ {2}6 turns {2}/);
      }
      // Each prompt: the summary line and the JSON result say what its events hold.
      const textPrompts = byPrompt(textLog);
      const jsonPrompts = byPrompt(jsonLog);
      expect(textPrompts).toHaveLength(4);
      // The prompts the note saw: a retry that then answered, a retry that failed again.
      expect(text.prompts[0]?.stderr).toMatch(/\n2 turns · 1 retry · 7900 in \/ 21 out tokens · /);
      expect(text.prompts[3]?.stderr).toMatch(
        /\n1 turn \(1 failed\) · 1 retry · tokens not reported · /,
      );
      for (const [index, output] of text.prompts.entries()) {
        expect(summaryCounts(output.stderr)).toEqual(logCounts(textPrompts[index] ?? []));
      }
      for (const [index, output] of json.prompts.entries()) {
        const expected = logCounts(jsonPrompts[index] ?? []);
        const { sessionId: _, ...counts } = resultCounts(output.stdout, expected);
        expect(counts).toEqual(expected);
      }
      // /usage sums the session the same way, for each of them.
      const terminal = await fixture.openReady(["--resume", text.sessionId], { rows: 50 });
      const session = logCounts(textLog);
      const rows = [
        "/usage",
        `  turns:          ${session.turns} (${session.details}) · ${session.retries} retries`,
        `  input tokens:   ${session.input}`,
        `  output tokens:  ${session.output}`,
        "  cost:           unknown (no price for this model)",
      ];
      terminal.type("/usage");
      expect(usageRows(await terminal.waitFor(/cost: /))).toEqual(rows);
      await terminal.idle();
      terminal.type(`/resume ${json.sessionId}`);
      await terminal.waitFor(/resumed session/);
      await terminal.idle();
      terminal.type("/usage");
      expect(usageRows(await terminal.waitFor(/cost: /))).toEqual(rows);
      terminal.key("C-d");
      expect((await terminal.exited()).code).toBe(0);
    },
  );
});
