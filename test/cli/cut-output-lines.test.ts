import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";
import { withoutToolTimes } from "../support/tool-times.js";

// A new user's trial (round 3): `seq 1 5000` kept for the model as its start and end around
// `[… 4,146 lines (20299 bytes) omitted; full output saved to PATH]`, but the faces counted the
// lines of that shortened text: `-p` said `… 851 more lines (--verbose shows all)`, `sessions
// show` `… 853 earlier lines`. Each face now reads the marker (cli/output-lines.ts `outputLines`):
// the lines it leaves out are 5000 less those it shows, and the saved file's path stands on a
// row of its own.

/** A window small enough that the turn's result budget cuts `seq 1 5000` (23,893 bytes). */
const SMALL_WINDOW = ["--context-window", "4096"];

/** All of `seq 1 5000`, as the saved file holds it. */
const WHOLE = `${Array.from({ length: 5000 }, (_, index) => index + 1).join("\n")}\n`;

function bashCall(command: string) {
  return { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] };
}

/** Runs `command` through the model's one bash call under `-p`; answers stderr and the session. */
async function runPrompt(
  cli: CliFixtures["cli"],
  model: CliFixtures["model"],
  command: string,
  extra: string[] = [],
): Promise<{ stderr: string; sessionId: string }> {
  model.enqueue(bashCall(command), { text: "Done." });
  const result = await cli(["-p", "go", "--allow-all-tools", ...SMALL_WINDOW, ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return { stderr: result.stderr, sessionId: printedSessionId(result.stderr) };
}

/** The saved file of the session's call: the model's result cut by its budget. */
function savedPath(home: string, sessionId: string): string {
  return join(home, "session-state", sessionId, "tool-results", "call_1.txt");
}

/** `-p`'s stderr without its closing summary, durations as `N ms`. */
function toolLines(stderr: string): string[] {
  return stderr
    .trimEnd()
    .split("\n")
    .slice(0, -1)
    .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
}

/** `sessions show`'s lines from the prompt on (the first line holds the time and folder). */
async function shown(cli: CliFixtures["cli"], sessionId: string): Promise<string[]> {
  const result = await cli(["sessions", "show", sessionId]);
  expect(result.code, result.stderr).toBe(0);
  // The calls' times vary from run to run (test/cli/tool-duration-faces.test.ts reads them).
  return withoutToolTimes(result.stdout).trimEnd().split("\n").slice(2);
}

describe("a cut command output counts the command's lines on every face", () => {
  test("-p: a failed command's last lines, the 4,995 others counted, the saved file on its own row; sessions show: 4,997", async ({
    cli,
    model,
    home,
  }) => {
    const command = "seq 1 5000; exit 1";
    const { stderr, sessionId } = await runPrompt(cli, model, command);
    const saved = savedPath(home, sessionId);
    // The result the model read, whole: the output and the command's exit.
    expect(await readFile(saved, "utf8")).toBe(`${WHOLE}<exited with exit code 1>`);
    expect(toolLines(stderr)).toEqual([
      `✗ bash ${command} failed (exit code 1) (N ms)`,
      "    … 4,995 more lines; full output saved to",
      `    ${saved}`,
      ...[4996, 4997, 4998, 4999, 5000].map((line) => `    ${line}`),
    ]);
    expect(await shown(cli, sessionId)).toEqual([
      "> go",
      `→ bash(command: "${command}") ✗ failed (exit code 1)`,
      "    … 4,997 earlier lines; full output saved to",
      `    ${saved}`,
      "    4998",
      "    4999",
      "    5000",
      "Done.",
      "[stop: end_turn]",
    ]);
  });

  test("sessions show: a command that succeeded shows its first lines, the 4,997 others counted", async ({
    cli,
    model,
    home,
  }) => {
    const { sessionId } = await runPrompt(cli, model, "seq 1 5000");
    expect(await shown(cli, sessionId)).toEqual([
      "> go",
      `→ bash(command: "seq 1 5000") ✓`,
      "    1",
      "    2",
      "    3",
      "    … 4,997 more lines; full output saved to",
      `    ${savedPath(home, sessionId)}`,
      "Done.",
      "[stop: end_turn]",
    ]);
  });

  test("-p --verbose: the whole lines the log holds, the cut between them counted; none cut mid-line", async ({
    cli,
    model,
    home,
  }) => {
    const command = "seq 1 5000; exit 1";
    const { stderr, sessionId } = await runPrompt(cli, model, command, ["--verbose"]);
    const lines = toolLines(stderr);
    const note = lines.findIndex((line) => line.startsWith("    … "));
    const head = lines.slice(1, note).map(Number);
    const tail = lines.slice(note + 2).map(Number);
    // The head runs 1, 2, … and the tail on to 5000, every line whole.
    expect(head).toEqual(head.map((_, index) => index + 1));
    expect(tail).toEqual(tail.map((_, index) => 5000 - tail.length + 1 + index));
    expect(lines.slice(note, note + 2)).toEqual([
      `    … ${(5000 - head.length - tail.length).toLocaleString("en-US")} more lines; full output saved to`,
      `    ${savedPath(home, sessionId)}`,
    ]);
  });

  // `seq 1 20000` (108,894 bytes) is cut by its runner (30,000 characters), then by the budget:
  // the budget's marker said the 5,618 line breaks of the runner's shortened text it left out
  // and named its own copy of that text, not the command's 20,000 lines.
  test("an output cut by its runner and again by the budget: counted and found as the command's", async ({
    cli,
    model,
    home,
  }) => {
    const command = "seq 1 20000; exit 1";
    const { stderr, sessionId } = await runPrompt(cli, model, command);
    const saved = join(home, "session-state", sessionId, "tool-outputs", "call_1.txt");
    const whole = Array.from({ length: 20000 }, (_, index) => index + 1).join("\n");
    expect(await readFile(saved, "utf8")).toBe(`${whole}\n`);
    expect(toolLines(stderr)).toEqual([
      `✗ bash ${command} failed (exit code 1) (N ms)`,
      "    … 19,995 more lines; full output saved to",
      `    ${saved}`,
      ...[19996, 19997, 19998, 19999, 20000].map((line) => `    ${line}`),
    ]);
    // What the model read says the same.
    const result = JSON.stringify(model.requests.at(-1)?.body ?? {});
    expect(result).toContain(`omitted; full output saved to ${saved}]`);
    expect(result).not.toContain("tool-results");
  });

  // Trial 45's LOW: one huge line (a minified JSON error) showed none of its kept end on `-p`
  // and said `0 lines` omitted to the model; its end is now shown, from `…`, the cut inside it
  // said as `part of 1 line`.
  test("one long line cut inside: its end shown from `…` on -p and in sessions show, `part of 1 line` omitted", async ({
    cli,
    model,
    home,
  }) => {
    const command = "head -c 40000 /dev/zero | tr '\\0' z; echo ' TAIL-OF-ONLY-LINE'; exit 5";
    // The default window: the runner's cut alone, not the turn's result budget.
    // Usage as a server that read the whole request counts it (no warning of a prompt cut short).
    model.enqueue(bashCall(command), { text: "Done.", usage: { input: 9000, output: 5 } });
    const { code, stderr } = await cli(["-p", "go", "--allow-all-tools"]);
    expect(code, stderr).toBe(0);
    const sessionId = printedSessionId(stderr);
    const saved = join(home, "session-state", sessionId, "tool-outputs", "call_1.txt");
    // The runner keeps 12,000 characters from the start and 18,000 from the end, `…` first.
    const end = `${"z".repeat(17_981)} TAIL-OF-ONLY-LINE`;
    const marker = `[… part of 1 line (10019 bytes) omitted; full output saved to ${saved}]`;
    const content = `${"z".repeat(12_000)}\n${marker}\n…${end}\n<exited with exit code 5>`;
    const body = model.requests.at(-1)?.body as { messages?: unknown[] } | undefined;
    expect(body?.messages?.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content });
    expect(toolLines(stderr)).toEqual([
      `✗ bash head -c 40000 /dev/zero | tr '\\0' z; echo ' TAIL-OF-ONLY-LI… failed (exit code 5) (N ms)`,
      "    … part of 1 line; full output saved to",
      `    ${saved}`,
      // Its end, cut as sessions show cuts it (--verbose: as the log kept it).
      `    …${end.slice(-119)}`,
    ]);
    // `sessions show` cuts it to its 120 characters from its start: its end is seen.
    expect(await shown(cli, sessionId)).toEqual([
      "> go",
      `→ bash(command: "head -c 40000 /dev/zero | tr '\\\\0' z; echo ' TAIL…) ✗ failed (exit code 5)`,
      "    … part of 1 line; full output saved to",
      `    ${saved}`,
      `    …${end.slice(-119)}`,
      "Done.",
      "[stop: end_turn]",
    ]);
  });

  test("a log written before the marker counted lines says some lines, never a number", async ({
    cli,
    model,
    home,
  }) => {
    const { sessionId } = await runPrompt(cli, model, "seq 1 5000; exit 1");
    const log = join(home, "session-state", sessionId, "events.jsonl");
    // The marker as older versions wrote it: `[… B bytes omitted; …]`.
    const older = (await readFile(log, "utf8")).replace(
      /\[… [\d,]+ lines \((\d+) bytes\)/g,
      "[… $1 bytes",
    );
    expect(older).toMatch(/\[… \d+ bytes omitted; full output saved to /);
    await writeFile(log, older);
    expect(await shown(cli, sessionId)).toEqual([
      "> go",
      `→ bash(command: "seq 1 5000; exit 1") ✗ failed (exit code 1)`,
      "    … some earlier lines; full output saved to",
      `    ${savedPath(home, sessionId)}`,
      "    4998",
      "    4999",
      "    5000",
      "Done.",
      "[stop: end_turn]",
    ]);
  });
});
