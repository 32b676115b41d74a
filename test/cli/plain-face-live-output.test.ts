import type { ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// The interactive face as plain lines (stdin not a terminal) printed a command's output only
// once it had ended (a `!command`), or not at all (a `bash` call that succeeded): a long command
// showed nothing while it ran. Its output is now printed as it comes, as the finished output's
// lines are; the call's ✓/✗ line follows without printing them again.

/**
 * A shell loop that waits until the test creates `gate` in the repository: the command's output
 * before it is what the face must have printed while the command runs.
 */
const WAIT_FOR_GATE = "while [ ! -e gate ]; do sleep 0.05; done";

/** An `onStart` that creates `gate` in `repository` once the child's stdout holds `line`. */
function gateWhenPrinted(repository: string, line: string): (child: ChildProcess) => void {
  return (child) => {
    let printed = "";
    let opened = false;
    child.stdout?.on("data", (chunk: Buffer | string) => {
      printed += chunk.toString();
      if (!opened && printed.includes(`${line}\n`)) {
        opened = true;
        // Only a command still waiting needs it: a repository removed meanwhile is no failure.
        writeFile(join(repository, "gate"), "").catch(() => undefined);
      }
    });
  };
}

/** A reply with one `bash` call. */
const bashCall = (command: string) => ({
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
});

/** The printed lines after the banner, durations as `N ms`. */
function linesAfterBanner(stdout: string): string[] {
  return stdout
    .split("\n")
    .slice(2)
    .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
}

describe("the plain-line face: a running command's output", () => {
  test("a bash call's lines are printed as they come, under a line naming the call; its ✓ line follows alone", async ({
    cli,
    model,
    repository,
  }) => {
    // The words are built by the shell (`$((1+1))`), so that the call's lines never match them.
    const command = `echo live-$((1+1)); ${WAIT_FOR_GATE}; echo live-$((2+1)); printf 'last-%d' 4`;
    model.enqueue(bashCall(command), { text: "Ran it." });
    const result = await cli(["--allow-all-tools"], {
      stdin: "run it\n",
      onStart: gateWhenPrinted(repository, "    live-2"),
    });
    expect(result.code, result.stderr).toBe(0);
    const id = printedSessionId(result.stdout);
    expect(linesAfterBanner(result.stdout)).toEqual([
      `> ● bash ${command.slice(0, 59)}…`,
      "    live-2",
      "    live-3",
      // The line the command did not end, printed once it ended.
      "    last-4",
      `✓ bash ${command.slice(0, 59)}… (N ms)`,
      "Ran it.",
      "> ",
      `session ${id}`,
      "",
    ]);
  });

  test("a failed command's lines are printed as they come; its ✗ line does not print them again", async ({
    cli,
    model,
    repository,
  }) => {
    const command = `echo step-$((1+1)); ${WAIT_FOR_GATE}; echo step-$((2+1)); exit 3`;
    model.enqueue(bashCall(command), { text: "It failed." });
    const result = await cli(["--allow-all-tools"], {
      stdin: "run it\n",
      onStart: gateWhenPrinted(repository, "    step-2"),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(linesAfterBanner(result.stdout).slice(0, 5)).toEqual([
      `> ● bash ${command.slice(0, 59)}…`,
      "    step-2",
      "    step-3",
      `✗ bash ${command.slice(0, 59)}… failed (exit code 3) (N ms)`,
      "It failed.",
    ]);
  });

  test("a `!command`'s lines are printed as they come, then how it ended", async ({
    cli,
    repository,
  }) => {
    const command = `echo shell-$((1+1)); ${WAIT_FOR_GATE}; echo shell-$((2+1))`;
    const result = await cli([], {
      stdin: `!${command}\n`,
      onStart: gateWhenPrinted(repository, "shell-2"),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(linesAfterBanner(result.stdout)).toEqual([
      `> $ ${command}`,
      "shell-2",
      "shell-3",
      "exit 0 · the output goes to the model with your next prompt",
      "> ",
      "no prompt was sent: the session was not saved",
      "",
    ]);
  });

  test("a `!command` that prints nothing says so, not that its output goes to the model (trial 30)", async ({
    cli,
  }) => {
    const result = await cli([], { stdin: "!true\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(linesAfterBanner(result.stdout)).toEqual([
      "> $ true",
      "exit 0 · no output; the model is told so with your next prompt",
      "> ",
      "no prompt was sent: the session was not saved",
      "",
    ]);
  });

  test("an output past the runner's limit: every line is printed once, in order, or counted in a line saying how many were not shown", async ({
    cli,
    model,
  }) => {
    // 30,005 lines (about 170,000 characters, far past the 30,000 the runner keeps), in bursts,
    // then a last line without a line break.
    const command =
      "seq 1 5000; sleep 0.3; seq 5001 9000; sleep 0.3; seq 9001 30000; sleep 0.3; seq 30001 30005; printf end";
    model.enqueue(bashCall(command), { text: "Ran it." });
    const result = await cli(["--allow-all-tools"], { stdin: "run it\n" });
    expect(result.code, result.stderr).toBe(0);
    const lines = linesAfterBanner(result.stdout);
    const first = lines.findIndex((line) => line.startsWith("    "));
    const last = lines.findIndex((line) => line.startsWith("✓ bash"));
    expect(lines[first - 1]).toBe(`> ● bash ${command.slice(0, 59)}…`);
    // Each printed number follows the one before, or the lines counted as not shown.
    let shown = 0;
    const unexpected: string[] = [];
    for (const line of lines.slice(first, last - 1)) {
      const number = /^ {4}(\d+)$/.exec(line)?.[1];
      const notShown = /^ {4}\[… (\d+) lines? not shown …\]$/.exec(line)?.[1];
      if (number !== undefined && Number(number) === shown + 1) {
        shown += 1;
      } else if (notShown !== undefined) {
        shown += Number(notShown);
      } else {
        unexpected.push(`${line} after ${shown}`);
      }
    }
    expect(unexpected).toEqual([]);
    expect(shown).toBe(30_005);
    expect(lines.slice(last - 1, last + 2)).toEqual([
      "    end",
      `✓ bash ${command.slice(0, 59)}… (N ms)`,
      "Ran it.",
    ]);
  });
});
