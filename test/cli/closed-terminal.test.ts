import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type InteractiveTerminal, tmuxMissing } from "../support/interactive-terminal.js";
import { isAlive } from "../support/processes.js";
import { type InteractiveFixture, interactiveTest } from "./interactive-support.js";

// A trial of session 18's build (round 3, session 19, item 1): closing the terminal window
// (SIGHUP, then EIO on every write) crashed the interactive face with an uncaught `write EIO`
// mid-prompt, or Node aborted at exit (`Assertion failed … node::ResetStdio()`), leaving the
// session's lock; `-p` aborted the same way at exit. README: SIGHUP cancels, the log says
// `cancelled by SIGHUP`, the exit code is 129; SIGTERM says `cancelled by SIGTERM`, exit 143.

/** A command the model runs; its pid file is the gate for closing the window. */
const SLEEPER = "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";

/** What a CLI whose terminal was closed left: its exit code, stderr and its one session. */
async function afterClosed(fixture: InteractiveFixture, folder: string) {
  const codeFile = join(folder, "code");
  await expect.poll(() => existsSync(codeFile), { timeout: 20_000 }).toBe(true);
  const sessions = readdirSync(join(fixture.home, "session-state"));
  expect(sessions).toHaveLength(1);
  const sessionFolder = join(fixture.home, "session-state", sessions[0] ?? "");
  return {
    code: Number(readFileSync(codeFile, "utf8")),
    stderr: readFileSync(join(folder, "stderr"), "utf8"),
    lockLeft: existsSync(join(sessionFolder, "lock")),
    events: await fixture.events(sessions[0] ?? ""),
  };
}

function enqueueSleeper(fixture: InteractiveFixture): void {
  fixture.server.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command: SLEEPER }) }],
  });
}

/**
 * Starts a prompt whose command runs until killed, with `start` (given the folder the CLI's exit
 * code and stderr are recorded in), closes the window once the command runs, and returns what the
 * CLI left.
 */
async function closedMidCommand(
  fixture: InteractiveFixture,
  start: (recordIn: string) => Promise<InteractiveTerminal>,
) {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-closed-"));
  enqueueSleeper(fixture);
  const terminal = await start(folder);
  await expect
    .poll(() => existsSync(join(fixture.repository, "command.pid")), { timeout: 15_000 })
    .toBe(true);
  terminal.closeWindow();
  return afterClosed(fixture, folder);
}

/** A closed window's end, on every face: no crash, the lock released, exit 129. */
function expectClosedCleanly(closed: Awaited<ReturnType<typeof afterClosed>>): void {
  expect(closed.stderr).not.toMatch(/EIO|Assertion|Error/);
  expect(closed.code).toBe(129);
  expect(closed.lockLeft).toBe(false);
}

describe.skipIf(tmuxMissing())("a closed terminal window", () => {
  interactiveTest(
    "mid-prompt: the command is killed, the log ends `cancelled by SIGHUP`, the lock is released, exit 129",
    async ({ fixture }) => {
      const closed = await closedMidCommand(fixture, async (recordIn) => {
        const terminal = await fixture.openReady(["--allow-all-tools"], { recordIn });
        terminal.type("wait");
        return terminal;
      });
      expectClosedCleanly(closed);
      expect(closed.events.at(-1)).toMatchObject({
        type: "abort",
        data: { reason: "cancelled by SIGHUP" },
      });
      const pid = Number(readFileSync(join(fixture.repository, "command.pid"), "utf8"));
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    },
  );

  interactiveTest(
    "idle after a prompt: no crash at exit, the lock is released, exit 129",
    async ({ fixture }) => {
      const folder = await mkdtemp(join(tmpdir(), "turnloop-closed-"));
      fixture.server.enqueue({ text: "Hello there." });
      const terminal = await fixture.openReady([], { recordIn: folder });
      terminal.type("hi");
      await terminal.waitFor(/Hello there\./);
      await terminal.idle();
      terminal.closeWindow();
      expectClosedCleanly(await afterClosed(fixture, folder));
    },
  );

  interactiveTest(
    "-p on a terminal: the log ends `cancelled by SIGHUP`, the lock is released, exit 129",
    async ({ fixture }) => {
      const closed = await closedMidCommand(fixture, async (recordIn) =>
        fixture.open(["-p", "wait", "--allow-all-tools"], { recordIn }),
      );
      expectClosedCleanly(closed);
      expect(closed.events.at(-1)).toMatchObject({
        type: "abort",
        data: { reason: "cancelled by SIGHUP" },
      });
    },
  );
});

describe.skipIf(tmuxMissing())("SIGTERM to the interactive face", () => {
  interactiveTest(
    "mid-prompt: the log ends `cancelled by SIGTERM`, as -p's does, exit 143",
    async ({ fixture }) => {
      enqueueSleeper(fixture);
      const terminal = await fixture.openReady(["--allow-all-tools"]);
      terminal.type("wait");
      await expect
        .poll(() => existsSync(join(fixture.repository, "command.pid")), { timeout: 15_000 })
        .toBe(true);
      process.kill(terminal.cliPid(), "SIGTERM");
      expect((await terminal.exited()).code).toBe(143);
      const sessions = readdirSync(join(fixture.home, "session-state"));
      const events = await fixture.events(sessions[0] ?? "");
      expect(events.at(-1)).toMatchObject({
        type: "abort",
        data: { reason: "cancelled by SIGTERM" },
      });
    },
  );
});
