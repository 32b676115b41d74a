import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, type ExpectStatic, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { InteractiveTerminal } from "../support/interactive-terminal.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import {
  type InteractiveFixture,
  interactiveTest,
  printedSessionId,
} from "./interactive-support.js";

/**
 * A shell loop that waits until the test creates `gate` in the repository: the command's output
 * before it is what the screen must show while the command runs.
 */
const WAIT_FOR_GATE = "while [ ! -e gate ]; do sleep 0.05; done";

/** The terminal's width. */
const COLUMNS = 140;

/** A reply with one `bash` call; the output's words are built by the shell (`$((1+1))`), so that
 * the call's line, which shows the command, never matches them. */
const bashCall = (command: string, timeout?: number) => ({
  toolCalls: [
    {
      id: "call_1",
      name: "bash",
      arguments: JSON.stringify(timeout === undefined ? { command } : { command, timeout }),
    },
  ],
});

/** The rows of the call's block: its line, and the rows under it, two columns in. */
function callBlock(screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.findIndex((row) => / bash /.test(row));
  const end = rows.findIndex((row, index) => index > start && !row.startsWith("  "));
  // Durations change from frame to frame.
  return rows
    .slice(start, end)
    .map((row) => row.replace(/ {2}(running )?[\d.]+ (?:ms|s|min)$/, "  $1Ns"));
}

/** The screen's rows after the row `above`, up to the input box's rule, durations as `Ns`. */
function rowsBelow(above: string, screen: string): string[] {
  const rows = screen.split("\n").map((row) => row.trimEnd());
  const start = rows.indexOf(above) + 1;
  const end = rows.findIndex((row, index) => index >= start && row.startsWith("───"));
  return rows
    .slice(start, end)
    .filter((row) => row !== "")
    .map((row) => row.replace(/ {2}(running )?[\d.]+ (?:ms|s|min)$/, "  $1Ns"));
}

/**
 * Starts the screen (`rows` high), sends a prompt whose model runs `command` (with `timeout`
 * seconds when given), answers `Ran it.` after it.
 */
async function runCommand(
  fixture: InteractiveFixture,
  command: string,
  options: { timeout?: number; rows?: number } = {},
): Promise<InteractiveTerminal> {
  fixture.server.enqueue(bashCall(command, options.timeout), { text: "Ran it." });
  // Wide enough for the call's line to show the whole command beside any duration.
  const terminal = await fixture.openReady(["--allow-all-tools"], {
    columns: COLUMNS,
    ...(options.rows === undefined ? {} : { rows: options.rows }),
  });
  terminal.type("run the command");
  return terminal;
}

/** Exits with Ctrl-D and answers the whole scrollback (the run's every row, as the user keeps it). */
async function scrollbackAfterExit(
  terminal: InteractiveTerminal,
  check: ExpectStatic = expect,
): Promise<string> {
  await terminal.idle();
  terminal.key("C-d");
  check((await terminal.exited()).code).toBe(0);
  return await terminal.screen(2000);
}

/**
 * In `terminal`'s session, idle: a reply with two `bash` calls, each waiting for a gate file of
 * its own; the second call waits, its line drawn, while the first runs, then runs with its output
 * under its own line.
 */
async function twoCommandsInOneReply(
  fixture: InteractiveFixture,
  terminal: InteractiveTerminal,
): Promise<void> {
  const first = "echo first-$((1+1)); while [ ! -e gate-1 ]; do sleep 0.05; done";
  const second = "echo second-$((1+1)); while [ ! -e gate-2 ]; do sleep 0.05; done";
  fixture.server.enqueue(
    {
      toolCalls: [
        { id: "call_2", name: "bash", arguments: JSON.stringify({ command: first }) },
        { id: "call_3", name: "bash", arguments: JSON.stringify({ command: second }) },
      ],
    },
    { text: "Ran both." },
  );
  terminal.type("run both");
  // The second call waits, its line drawn, while the first runs; then the second runs.
  const firstRunning = await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +first-2\n/);
  expect(rowsBelow("› run both", firstRunning)).toEqual([
    `● bash ${first}  running Ns`,
    "  first-2",
    `● bash ${second}  …`,
  ]);
  await writeFile(join(fixture.repository, "gate-1"), "");
  const secondRunning = await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +second-2\n/);
  expect(rowsBelow("› run both", secondRunning)).toEqual([
    `✓ bash ${first}  Ns`,
    "  first-2",
    `● bash ${second}  running Ns`,
    "  second-2",
  ]);
  await writeFile(join(fixture.repository, "gate-2"), "");
  const done = await terminal.waitFor(/Ran both\./);
  expect(rowsBelow("› run both", done)).toEqual([
    `✓ bash ${first}  Ns`,
    "  first-2",
    `✓ bash ${second}  Ns`,
    "  second-2",
    "Ran both.",
  ]);
}

describe.skipIf(tmuxMissing())("the interactive screen: a running command's output", () => {
  interactiveTest(
    "shows the output's last lines under the running call, then the usual result in their place; two commands in one reply after it run one after the other, each showing its output under its own line; the scrollback keeps only the final views",
    async ({ fixture }) => {
      const command = `echo live-$((1+1)); ${WAIT_FOR_GATE}; echo live-$((2+1)); echo live-$((3+1))`;
      const terminal = await runCommand(fixture, command);
      const running = await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +live-2\n/);
      expect(callBlock(running)).toEqual([`● bash ${command}  running Ns`, "  live-2"]);
      await writeFile(join(fixture.repository, "gate"), "");
      const done = await terminal.waitFor(/Ran it\./);
      const final = [`✓ bash ${command}  Ns`, "  live-2", "  live-3", "  live-4"];
      expect(callBlock(done)).toEqual(final);
      await terminal.idle();
      await twoCommandsInOneReply(fixture, terminal);
      const scrollback = await scrollbackAfterExit(terminal);
      expect(callBlock(scrollback)).toEqual(final);
      // No frame of the running call was left behind in the scrollback.
      expect(scrollback.match(/bash echo live/g)).toHaveLength(1);
      expect(scrollback).not.toMatch(/running \d/);
    },
  );

  interactiveTest(
    "a long output shows its last four lines, each cut at the terminal's edge",
    async ({ fixture }) => {
      // 20,000 rows: past what a result keeps whole (its head and tail are kept).
      const command = `seq -f 'row-%g' 1 20000; head -c 300 /dev/zero | tr '\\0' x; echo; ${WAIT_FOR_GATE}`;
      const terminal = await runCommand(fixture, command);
      // Once the last line is out (frames before it show earlier rows, as they came).
      const running = await terminal.waitFor(
        /running [\d.]+ (?:ms|s|min)\n(?: +row-\d+\n){3} +x+\.\.\.\n/,
      );
      expect(callBlock(running)).toEqual([
        `● bash ${command}  running Ns`,
        "  row-19998",
        "  row-19999",
        "  row-20000",
        `  ${"x".repeat(COLUMNS - 5)}...`,
      ]);
      await writeFile(join(fixture.repository, "gate"), "");
      await terminal.waitFor(/Ran it\./);
      const scrollback = await scrollbackAfterExit(terminal);
      // The result keeps the output's start and end: the note counts the 20,001 lines less the
      // four shown, and names the file with all of it on rows of its own, wrapped (a path is
      // read whole), where the output's lines are cut at the edge.
      const block = callBlock(scrollback);
      const tail = block.indexOf("  row-19998");
      expect(block[1]).toBe("  … 19,997 earlier lines; full output saved to");
      const saved = block
        .slice(2, tail)
        .map((row) => row.trim())
        .join("");
      const whole = readFileSync(saved, "utf8");
      expect([whole.startsWith("row-1\nrow-2\n"), whole.includes("\nrow-20000\n")]).toEqual([
        true,
        true,
      ]);
      expect([block[0], ...block.slice(tail)]).toEqual([
        `✓ bash ${command}  Ns`,
        "  row-19998",
        "  row-19999",
        "  row-20000",
        `  ${"x".repeat(COLUMNS - 5)}...`,
      ]);
      expect(scrollback).not.toMatch(/running \d/);
    },
  );

  interactiveTest(
    "in a terminal lower than the screen's content, the scrollback keeps one copy of the call: the final one",
    async ({ fixture }) => {
      const command = `for i in 1 2 3; do echo step-$i; done; ${WAIT_FOR_GATE}; for i in 4 5 6; do echo step-$i; done`;
      // Eight rows: the input box and the call's block with its live lines do not fit together.
      const terminal = await runCommand(fixture, command, { rows: 8 });
      await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +step-1\n +step-2\n +step-3\n/);
      await writeFile(join(fixture.repository, "gate"), "");
      await terminal.waitFor(/Ran it\./);
      const scrollback = await scrollbackAfterExit(terminal);
      const shortId = printedSessionId(scrollback).slice(0, 8);
      const final = [
        `✓ bash ${command}  Ns`,
        `  … 2 earlier lines (turnloop sessions export ${shortId} --format markdown shows all)`,
        "  step-3",
        "  step-4",
        "  step-5",
        "  step-6",
      ];
      expect(callBlock(scrollback)).toEqual(final);
      expect(scrollback.match(/bash for i/g)).toHaveLength(1);
      expect(scrollback).not.toMatch(/running \d/);
      expect(scrollback.match(/step-1/g)).toBeNull();
    },
  );

  interactiveTest(
    "a command cancelled with Ctrl-C: its live lines give way to the interrupted call's view",
    async ({ fixture }) => {
      const command = `echo live-$((1+1)); ${WAIT_FOR_GATE}`;
      const terminal = await runCommand(fixture, command);
      await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +live-2\n/);
      terminal.key("C-c");
      const cancelled = await terminal.waitFor(/⊘ bash/);
      const final = [
        `⊘ bash ${command}  interrupted`,
        "  live-2",
        "  Command cancelled; its process group was killed.",
        "  [cancelled by the user]",
      ];
      expect(callBlock(cancelled)).toEqual(final);
      const scrollback = await scrollbackAfterExit(terminal);
      expect(callBlock(scrollback)).toEqual(final);
      expect(scrollback.match(/bash echo live/g)).toHaveLength(1);
      const sessionId = printedSessionId(scrollback);
      expect((await fixture.eventTypes(sessionId)).filter((type) => type === "abort")).toHaveLength(
        1,
      );
    },
  );
});

// The timed-out case waits out its 2 s timeout on the clock, not the processor: beside two cases
// that run no longer, the wait costs their runs, not 2 s after them. Each case has its own
// terminal, fake model and repository (the fixture) and asserts with its own `expect`.
describe.skipIf(tmuxMissing())(
  "the interactive screen: a running command's output, beside a timeout's wait",
  { concurrent: true },
  () => {
    interactiveTest(
      "a command that times out: its live lines give way to the timed-out call's view",
      async ({ fixture, expect }) => {
        const command = "echo live-$((1+1)); sleep 60";
        const terminal = await runCommand(fixture, command, { timeout: 2 });
        await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +live-2\n/);
        const done = await terminal.waitFor(/Ran it\./);
        const final = [`✗ bash ${command}  timed out after 2 s`, "  live-2"];
        expect(callBlock(done)).toEqual(final);
        const scrollback = await scrollbackAfterExit(terminal, expect);
        expect(callBlock(scrollback)).toEqual(final);
        expect(scrollback).not.toMatch(/running \d/);
      },
    );

    // The session-28 trial (#3): `seq 1 500` ended as its last four lines, with no word of the
    // 496 others. The note says how many and which command shows them; that command does.
    interactiveTest(
      "a finished command's longer output says how many earlier lines it leaves out and where all are",
      async ({ fixture, expect }) => {
        const terminal = await runCommand(fixture, "seq 1 500");
        const done = await terminal.waitFor(/Ran it\./);
        const sessionId = /sessions export ([0-9a-f]{8}) /.exec(done)?.[1] ?? "(none)";
        expect(rowsBelow("› run the command", done)).toEqual([
          "✓ bash seq 1 500  Ns",
          `  … 496 earlier lines (turnloop sessions export ${sessionId} --format markdown shows all)`,
          "  497",
          "  498",
          "  499",
          "  500",
          "Ran it.",
        ]);
        await scrollbackAfterExit(terminal, expect);
        const exported = await runCli(["sessions", "export", sessionId, "--format", "markdown"], {
          cwd: fixture.repository,
          env: fixture.environment(),
        });
        const all = Array.from({ length: 500 }, (_, index) => String(index + 1)).join("\n");
        expect(exported.stdout).toContain(all);
      },
    );

    interactiveTest(
      "tabs in the output keep the columns the command printed (a stop every eight), though drawn indented, and are cut at the edge",
      async ({ fixture, expect }) => {
        // Fifteen `tab-N` columns, printed at once (a frame shows no half line): 120 columns once
        // laid out, more than the 80 of the terminal.
        const command = `printf 'tab-%d\\t' $(seq 1 15); echo; ${WAIT_FOR_GATE}`;
        fixture.server.enqueue(bashCall(command), { text: "Ran it." });
        const terminal = await fixture.openReady(["--allow-all-tools"], { columns: 80 });
        terminal.type("run the command");
        const columns = Array.from({ length: 15 }, (_, index) => `tab-${index + 1}`.padEnd(8));
        const shown = `  ${columns.join("")}`.slice(0, 77);
        const running = await terminal.waitFor(/running [\d.]+ (?:ms|s|min)\n +tab-1 .*\.\.\.\n/);
        expect(rowsBelow("› run the command", running).slice(1)).toEqual([`${shown}...`]);
        await writeFile(join(fixture.repository, "gate"), "");
        const done = await terminal.waitFor(/Ran it\./);
        expect(rowsBelow("› run the command", done).slice(1)).toEqual([`${shown}...`, "Ran it."]);
      },
    );
  },
);
