/**
 * Round 3 session 45: straight after a `turnloop -p` was killed (SIGKILL) mid-prompt, before any
 * reopen, `sessions show` said the prompt was interrupted (session 44), while `turnloop sessions`
 * and the SDK's `session.list` entries said nothing of it: their summaries never fold the log.
 * The listing metadata keeps whether the last prompt has an end (the session model's stop rule,
 * prompt-stops.ts), so a listing tells a prompt left open with no live writer as interrupted,
 * asking the lock only of sessions whose prompt is open, and writes nothing to the log.
 */

import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, vi } from "vitest";
import { PROCESS_ENDED_WORDS } from "../../src/cli/prompt-stop.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import { sessionListEntry } from "../../src/server/state-methods.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { CollectedText } from "../support/collected-text.js";
import { test } from "../support/fixtures.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** `turnloop sessions [--json]` run in-process against `home`: its stdout. */
async function listed(home: string, json: boolean): Promise<string> {
  vi.stubEnv("TURNLOOP_HOME", home);
  const stdout = new CollectedText();
  const command = { kind: "sessions-list" as const, json };
  expect(await runSessionsCommand(command, { stdout, stderr: new CollectedText() })).toBe(0);
  return stdout.text;
}

test("a prompt whose -p was killed lists as interrupted, before any reopen, and the log is left as it was", async ({
  cli,
  model,
  home,
  repository,
}) => {
  let child: ChildProcess | undefined;
  model.setResponder(() => {
    // The request is sent, so its turn_start is in the log: the process dies mid-turn.
    child?.kill("SIGKILL");
    return { raw: [{ hold: true }] };
  });
  const crashed = await cli(["-p", "count slowly"], {
    onStart: (started) => {
      child = started;
    },
  });
  expect(crashed.signal).toBe("SIGKILL");
  const [sessionId = ""] = await readdir(join(home, "session-state"));
  const log = join(home, "session-state", sessionId, "events.jsonl");
  const before = await readFile(log);

  const [line, prompt, ...rest] = (await listed(home, false)).split("\n");
  expect({
    line: line?.replace(/ {2}just now {2}| {2}\d+ min ago {2}/, "  <age>  "),
    prompt,
    rest,
  }).toEqual({
    line: `${sessionId}  <age>  1 turn  ${repository}`,
    prompt: `    count slowly  [stop: interrupted (${PROCESS_ENDED_WORDS})]`,
    rest: [""],
  });
  const [summary] = JSON.parse(await listed(home, true)) as Array<Record<string, unknown>>;
  expect(summary).toMatchObject({
    sessionId,
    firstPrompt: "count slowly",
    turns: 1,
    interrupted: true,
  });
  const [stored] = await openSessionStore(home).list();
  expect(stored === undefined ? undefined : sessionListEntry(stored)).toEqual({
    sessionId,
    startTime: expect.any(String),
    modifiedTime: expect.any(String),
    isRemote: false,
    summary: "count slowly",
    context: { cwd: repository },
    model: "openai-compatible:fake-model",
    turns: 1,
    interrupted: true,
  });
  expect(await readFile(log)).toEqual(before);

  // The next open records the end: the listing then has nothing to add.
  model.setResponder(() => ({ text: "counted" }));
  const resumed = await cli(["-p", "again", "--resume", sessionId]);
  expect(resumed.code, resumed.stderr).toBe(0);
  const [after] = await openSessionStore(home).list();
  expect(after).not.toHaveProperty("interrupted");
});
