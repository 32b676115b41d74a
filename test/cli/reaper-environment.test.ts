import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

// Trial 33, finding 3: after kill -9 of a worker, its running `bash` command ran on. The reaper
// (src/tools/group-reaper.ts) is a `bash -c` whose stdin is a socket: bash then reads the user's
// ~/.bashrc when SHLVL is unset or 0 (as here: the test's environment has no SHLVL), and BASH_ENV
// always; the trial's ~/.bashrc ran a `pyenv rehash` that waited a minute on a stale lock before
// the reaper could read its pipe. Here both block on a FIFO until the test ends, for every bash
// but the command itself: the reaper must run nothing but its script.

/** Resolves once no process of the group led by `pid` is left; rejects after `limitMs`. */
async function groupGone(pid: number, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`process group ${pid} still alive after ${limitMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets every process blocked opening `fifo` for reading go on (none: nothing happens). */
function releaseReaders(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: no reader is waiting.
  }
}

test("kill -9 of turnloop mid-command kills the command even when BASH_ENV and ~/.bashrc would block a bash", async ({
  cli,
  model,
  repository,
  home,
}) => {
  const fifo = join(home, "hold");
  execFileSync("mkfifo", [fifo]);
  // Blocks any bash but the model's command (whose text names `started`).
  const blocker = `case "$BASH_EXECUTION_STRING" in *started*) ;; *) read -r _ < ${fifo} ;; esac\n`;
  await writeFile(join(home, "blocker.sh"), blocker);
  await writeFile(join(home, ".bashrc"), blocker);
  const command = "echo $$ > started.part && mv started.part started; exec sleep 600";
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  let group: number | undefined;
  try {
    const run = await cli(["-p", "run it", "--yolo"], {
      env: { BASH_ENV: join(home, "blocker.sh") },
      onStart: (child) =>
        whenFileExists(join(repository, "started"), child, () => child.kill("SIGKILL")),
    });
    expect(run.signal).toBe("SIGKILL");
    group = Number((await readFile(join(repository, "started"), "utf8")).trim());
    // A reaper held by the blocker never kills the group: its `sleep 600` lives on.
    await groupGone(group, 20_000);
  } finally {
    if (group !== undefined) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    releaseReaders(fifo);
  }
});
