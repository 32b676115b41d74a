/**
 * Trial 44 (noticed): `turnloop sessions` printed every session (208 sessions, 416 lines), with no
 * way to ask for fewer. `--limit N` lists the newest N and says how many older ones it left out;
 * `--json --limit N` is the newest N summaries; without `--limit` the list stays whole.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { UsageError } from "../../src/cli/argument-flags.js";
import { parseCommand } from "../../src/cli/arguments.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import type { EventInput } from "../../src/events/events.js";
import { logBytes, makeTemporaryDirectory, sessionStart, userMessage } from "../session/support.js";
import { CollectedText } from "../support/collected-text.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const IDS = [
  "00000000-0000-4000-8000-000000000001",
  "00000000-0000-4000-8000-000000000002",
  "00000000-0000-4000-8000-000000000003",
];

/**
 * A home with three sessions, the first oldest, each asked "prompt N" in `cwd` and cancelled
 * before a turn (a prompt left without an end would list as interrupted).
 */
async function threeSessions(): Promise<{ home: string }> {
  const home = await makeTemporaryDirectory();
  for (const [index, sessionId] of IDS.entries()) {
    const folder = join(home, "session-state", sessionId);
    await mkdir(folder, { recursive: true });
    const start = new Date(Date.UTC(2026, 2, 1 + index, 10));
    const inputs: EventInput[] = [
      sessionStart(sessionId, home, start.toISOString()),
      userMessage(`prompt ${index + 1}`),
      { type: "abort", data: { reason: "user" } },
    ];
    await writeFile(join(folder, "events.jsonl"), logBytes(inputs, start));
  }
  return { home };
}

/** `turnloop sessions <args>` run in-process: its exit code and stdout. */
async function sessions(home: string, args: string[]) {
  vi.stubEnv("TURNLOOP_HOME", home);
  const command = parseCommand(["sessions", ...args], home);
  if (command.kind !== "sessions-list") {
    throw new Error(`not a sessions list: ${command.kind}`);
  }
  const stdout = new CollectedText();
  const code = await runSessionsCommand(command, { stdout, stderr: new CollectedText() });
  return { code, stdout: stdout.text };
}

test("--limit lists the newest N and says how many older ones it left out; without it, all", async () => {
  const { home } = await threeSessions();
  const line = (id: number) =>
    `${IDS[id - 1]}  2026-03-0${id}  0 turns  ${home}\n    prompt ${id}\n`;
  expect(await sessions(home, ["--limit", "2"])).toEqual({
    code: 0,
    stdout: `${line(3)}${line(2)}(1 older session not listed: --limit 3 or no --limit lists all)\n`,
  });
  expect(await sessions(home, ["list", "--limit", "3"])).toEqual({
    code: 0,
    stdout: `${line(3)}${line(2)}${line(1)}`,
  });
  expect(await sessions(home, [])).toEqual({ code: 0, stdout: `${line(3)}${line(2)}${line(1)}` });
});

test("--json --limit N is the newest N summaries", async () => {
  const { home } = await threeSessions();
  const { code, stdout } = await sessions(home, ["--json", "--limit", "1"]);
  const listed = JSON.parse(stdout) as Array<{ sessionId: string; firstPrompt: string }>;
  expect({
    code,
    listed: listed.map(({ sessionId, firstPrompt }) => ({ sessionId, firstPrompt })),
  }).toEqual({
    code: 0,
    listed: [{ sessionId: IDS[2], firstPrompt: "prompt 3" }],
  });
});

test("--limit takes a whole number ≥ 1, and only sessions list reads it", () => {
  const refused = (args: string[]) => {
    try {
      parseCommand(args, "/");
      return "accepted";
    } catch (error) {
      return error instanceof UsageError ? error.message : String(error);
    }
  };
  expect([
    refused(["sessions", "--limit", "0"]),
    refused(["sessions", "--limit", "ten"]),
    refused(["sessions", "--limit", "99999999999999999999"]),
    refused(["sessions", "show", "x", "--limit", "2"]),
  ]).toEqual([
    '--limit must be a whole number ≥ 1 (sessions listed), not "0"',
    '--limit must be a whole number ≥ 1 (sessions listed), not "ten"',
    // verify 44: "≥ 1" alone for a whole number past the largest a double holds exactly.
    '--limit must be a whole number from 1 to 9007199254740991 (sessions listed), not "99999999999999999999"',
    expect.stringContaining("--limit"),
  ]);
});
