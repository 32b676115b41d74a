import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial 47 F2: with stdout on a full disk (`turnloop -p hello > out.txt` on a full file system;
// /dev/full fails every write with ENOSPC) turnloop crashed: a stack trace and a line of the
// minified bundle on stderr. Now every face says it in one `turnloop:` line, the run goes on to
// its end with its session kept, and the exit code is 1 (README, Exit codes).

const FULL = "turnloop: could not write to stdout: ENOSPC: no space left on device";

/** Every `turnloop:` line of `stderr`, and whether a stack trace or Node's crash footer showed. */
function said(stderr: string): { lines: string[]; crashed: boolean } {
  const lines = stderr.split("\n").filter((line) => line.startsWith("turnloop:"));
  return { lines, crashed: /^\s+at |^Node\.js v/m.test(stderr) };
}

describe.runIf(process.platform === "linux")("stdout on a full disk (/dev/full)", () => {
  test("-p in text, json and stream-json: one turnloop: line, exit 1, the answer kept in the session", async ({
    cli,
    model,
    home,
    loggedEvents,
  }) => {
    const results = [];
    for (const format of ["text", "json", "stream-json"]) {
      model.enqueue({ text: `The answer in ${format}.` });
      const result = await cli(["-p", "hello", "--output-format", format], {
        prefix: "exec >/dev/full",
      });
      results.push({ code: result.code, ...said(result.stderr) });
    }
    const expected = { code: 1, lines: [FULL], crashed: false };
    expect(results).toEqual([expected, expected, expected]);
    // Each run's session holds its whole answer.
    const sessions = await readdir(join(home, "session-state"));
    const answers = await Promise.all(
      sessions.map(async (id) =>
        (await loggedEvents(id))
          .filter((event) => event.type === "assistant.message")
          .map((event) => event.data.content),
      ),
    );
    expect(answers.flat().sort()).toEqual([
      "The answer in json.",
      "The answer in stream-json.",
      "The answer in text.",
    ]);
  });

  test("sessions list, config and --help: one turnloop: line and exit 1", async ({ cli }) => {
    const results = [];
    for (const args of [["sessions", "list"], ["config"], ["--help"]]) {
      const result = await cli(args, { prefix: "exec >/dev/full" });
      results.push({ code: result.code, ...said(result.stderr) });
    }
    const expected = { code: 1, lines: [FULL], crashed: false };
    expect(results).toEqual([expected, expected, expected]);
  });
});
