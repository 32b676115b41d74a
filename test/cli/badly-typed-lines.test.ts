/**
 * A line of `events.jsonl` that is JSON with a known type but whose `data` fields do not have
 * their declared types (session-19 brief: an `assistant.message` without `toolRequests` made
 * `sessions show` exit 1 with "message.toolRequests is not iterable", `-p --resume` exit 1, and
 * `content: 5` broke the next request) is a damaged line: skipped and reported as `invalid_event`
 * on every face, the rest of the session intact. One line of each kind of hole: a missing
 * required field, a wrong primitive type, a wrong array element type, a value outside its union.
 */

import { appendFile, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { BADLY_TYPED_LINES } from "../support/badly-typed-lines.js";
import { test } from "../support/fixtures.js";
import { makeHome } from "../support/test-home.js";

async function sessionWithBadLines(
  cli: (args: readonly string[]) => Promise<{ code: number | null; stderr: string }>,
  home: string,
): Promise<{ sessionId: string; path: string; firstBad: number }> {
  const first = await cli(["-p", "hello there"]);
  expect(first.code, first.stderr).toBe(0);
  const [sessionId = ""] = await readdir(join(home, "session-state"));
  const path = join(home, "session-state", sessionId, "events.jsonl");
  const lines = (await readFile(path, "utf8")).split("\n").length;
  await appendFile(path, BADLY_TYPED_LINES.join(""));
  return { sessionId, path, firstBad: lines };
}

/** The line numbers of the bad lines, appended from line `firstBad` on. */
const badLineNumbers = (firstBad: number) => BADLY_TYPED_LINES.map((_, index) => firstBad + index);

describe("badly typed log lines are skipped and reported, not crashing readers", () => {
  test("sessions show marks each one and shows the rest of the session", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue({ text: "first answer" });
    const { sessionId, firstBad } = await sessionWithBadLines(cli, home);
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code, shown.stderr).toBe(0);
    for (const line of badLineNumbers(firstBad)) {
      expect(shown.stdout).toContain(`[damaged line ${line} skipped (invalid_event)]\n`);
    }
    expect(shown.stdout).toContain("\n> hello there\nfirst answer\n");
    expect(shown.stderr).toBe(
      `turnloop: skipped ${BADLY_TYPED_LINES.length} damaged lines while reading ` +
        "(marked under the session line)\n",
    );
  });

  test("-p --resume says what it skipped and sends the intact history", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue({ text: "first answer" });
    const { sessionId, firstBad } = await sessionWithBadLines(cli, home);
    model.enqueue({ text: "second answer" });
    const resumed = await cli(["-p", "and again", "--resume", sessionId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("second answer");
    const lines = badLineNumbers(firstBad).join(", ");
    expect(resumed.stderr).toContain(
      `repaired the session log: skipped ${BADLY_TYPED_LINES.length} damaged lines (${lines})`,
    );
    expect(resumed.stderr).not.toContain("NaN");
    const request = JSON.stringify(model.requests.at(-1)?.body);
    expect(request).toContain("hello there");
    expect(request).toContain("first answer");
    expect(request).toContain("and again");
  });

  test("sessions import names the damaged lines; a badly typed session.start is refused", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    model.enqueue({ text: "first answer" });
    const { sessionId, firstBad } = await sessionWithBadLines(cli, home);
    const exported = join(repository, "s.jsonl");
    expect(
      (await cli(["sessions", "export", sessionId, "--format", "jsonl", "--out", exported])).code,
    ).toBe(0);
    await rm(join(home, "session-state", sessionId), { recursive: true, force: true });
    const imported = await cli(["sessions", "import", exported]);
    expect(imported.code, imported.stderr).toBe(0);
    const lines = badLineNumbers(firstBad).join(", ");
    expect(imported.stderr).toContain(
      `turnloop: the log has ${BADLY_TYPED_LINES.length} damaged lines (${lines}): stored as ` +
        "is, skipped when read\n",
    );
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("\n> hello there\nfirst answer\n");

    // A session.start whose fields are not of their types: no readable start, nothing imported.
    const text = await readFile(exported, "utf8");
    const [start = "", ...rest] = text.split("\n");
    const parsed = JSON.parse(start) as { data: { sessionId: unknown; cwd: unknown } };
    const other = await makeHome("turnloop-badly-typed-");
    try {
      for (const data of [
        { ...parsed.data, sessionId: 42 },
        { ...parsed.data, cwd: ["/"] },
      ]) {
        const file = join(other, "bad-start.jsonl");
        await writeFile(file, [JSON.stringify({ ...parsed, data }), ...rest].join("\n"));
        const refused = await cli(["sessions", "import", file], { env: { TURNLOOP_HOME: other } });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain(
          "the file has no readable session.start event: nothing to import",
        );
      }
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
