import { randomUUID } from "node:crypto";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial 24, finding 1: a line of another session, a repeated line and two logs joined were read
// as the session's own, and reached the model. Each reader skips them and says so, as it does
// damaged lines (README, "Where sessions are kept": the chain rule).

/** The lines of `events.jsonl` of `sessionId` in `home`, each with its `\n`. */
async function logLines(home: string, sessionId: string): Promise<string[]> {
  const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
  return text.split(/(?<=\n)/);
}

test("another session's line and a repeated line are skipped and reported by show, export, -p and the model's history", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
  const first = await cli(["-p", "first"]);
  const a = printedSessionId(first.stderr);
  const second = await cli(["-p", "SECRET prompt of B"]);
  const b = printedSessionId(second.stderr);
  const linesOfA = await logLines(home, a);
  const linesOfB = await logLines(home, b);
  const foreign = linesOfB.find((line) => line.includes('"user.message"')) ?? "";
  const repeated = linesOfA.find((line) => line.includes('"user.message"')) ?? "";
  const path = join(home, "session-state", a, "events.jsonl");
  await appendFile(path, foreign + repeated);
  const foreignLine = linesOfA.length + 1;

  const show = await cli(["sessions", "show", a]);
  expect(show.code).toBe(0);
  expect(show.stdout).not.toContain("SECRET");
  expect(show.stdout.match(/> first/g)).toHaveLength(1);
  expect(show.stdout.split("\n").filter((line) => line.startsWith("[damaged"))).toEqual([
    `[damaged line ${foreignLine} skipped (unknown_parent)]`,
    `[damaged line ${foreignLine + 1} skipped (duplicate_id)]`,
  ]);

  const exported = await cli(["sessions", "export", a, "--format", "json"]);
  const summary = JSON.parse(exported.stdout).summary;
  expect(summary.prompts).toBe(1);
  expect(summary.repaired.map((note: { reason: string }) => note.reason)).toEqual([
    "unknown_parent",
    "duplicate_id",
  ]);

  const resumed = await cli(["-p", "next", "--resume", a]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    `turnloop: repaired the session log: skipped 2 lines that are not of this session's chain (${foreignLine}: unknown_parent, ${foreignLine + 1}: duplicate_id)\n`,
  );
  const messages = chatMessages(model, -1).filter((message) => message.role !== "system");
  expect(messages.map((message) => [message.role, message.content])).toEqual([
    ["user", "first"],
    ["assistant", "one"],
    ["user", "next"],
  ]);
});

test("sessions import refuses two sessions' logs joined, naming both", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue({ text: "one" }, { text: "two" });
  const a = printedSessionId((await cli(["-p", "first"])).stderr);
  const b = printedSessionId((await cli(["-p", "second"])).stderr);
  const linesOfA = await logLines(home, a);
  const joined = [...linesOfA, ...(await logLines(home, b))].join("");
  const secondStart = linesOfA.length + 1;
  const file = join(home, "joined.jsonl");
  await writeFile(file, joined);
  await cli(["sessions", "delete", a]);

  const imported = await cli(["sessions", "import", file]);
  expect(imported).toMatchObject({
    code: 1,
    stdout: "",
    stderr: `turnloop: the file holds two sessions: ${a}, and ${b} from line ${secondStart} on; import each log on its own\n`,
  });
  const listed = await cli(["sessions", "--json"]);
  expect(
    JSON.parse(listed.stdout).map((session: { sessionId: string }) => session.sessionId),
  ).toEqual([b]);
});

test("the listing counts what show and export read: lines not of the chain are not counted", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue({ text: "one" }, { text: "two" });
  const a = printedSessionId((await cli(["-p", "first"])).stderr);
  const b = printedSessionId((await cli(["-p", "second"])).stderr);
  const linesOfA = await logLines(home, a);
  const turnOf = (lines: string[]) =>
    lines.find((line) => line.includes('"assistant.turn_start"')) ?? "";
  // B's turn, A's turn again, and a turn with a null parent past A's first event.
  const orphan = turnOf(linesOfA)
    .replace(/"id":"[^"]*"/, `"id":"${randomUUID()}"`)
    .replace(/"parentId":"[^"]*"/, '"parentId":null');
  const appended = [turnOf(await logLines(home, b)), turnOf(linesOfA), orphan];
  await appendFile(join(home, "session-state", a, "events.jsonl"), appended.join(""));

  const exported = JSON.parse((await cli(["sessions", "export", a, "--format", "json"])).stdout);
  expect(exported.summary.turns).toBe(1);
  const listed = JSON.parse((await cli(["sessions", "--json"])).stdout);
  expect(listed.find((session: { sessionId: string }) => session.sessionId === a)).toMatchObject({
    turns: exported.summary.turns,
    eventCount: linesOfA.length,
    firstPrompt: "first",
  });
});
