/**
 * A session whose `session.start` line is damaged cannot be resumed (a trial, round 3 session
 * 29): `-p --resume` said so and named no way on. It now says where the conversation can still be
 * read, and that a new session goes on; `sessions show` reads it, as the message says.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

describe("-p --resume of a session whose session.start line is damaged", () => {
  test("is refused with the ways on, and sessions show reads the conversation", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue({ text: "first answer" });
    const first = await cli(["-p", "hello there"]);
    expect(first.code, first.stderr).toBe(0);
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    const path = join(home, "session-state", sessionId, "events.jsonl");
    const [, ...rest] = (await readFile(path, "utf8")).split("\n");
    await writeFile(path, ['{"type":"session.st', ...rest].join("\n"));

    const resumed = await cli(["-p", "again", "--resume", sessionId]);
    expect(resumed.code).not.toBe(0);
    expect(resumed.stderr).toContain(
      `session ${sessionId} has no session.start event; it cannot be resumed. Its conversation can still be read (turnloop sessions show ${sessionId}, or sessions export ${sessionId} --format markdown); start a new session to go on`,
    );
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("> hello there\nfirst answer\n");
  });
});
