import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "../support/fixtures.js";
import { groupGone, killTurnloopMidCommand } from "../support/killed-command.js";

// Trial 33, finding 3: after kill -9 of a worker, its running `bash` command ran on. The reaper
// (src/tools/group-reaper.ts) is a `bash -c` whose stdin is a socket: bash then reads the user's
// ~/.bashrc when SHLVL is unset or 0 (as here: the test's environment has no SHLVL), and BASH_ENV
// always; the trial's ~/.bashrc ran a `pyenv rehash` that waited a minute on a stale lock before
// the reaper could read its pipe. Here both block on a FIFO until the test ends, for every bash
// but the command itself: the reaper must run nothing but its script.

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
  let group: number | undefined;
  try {
    group = await killTurnloopMidCommand({ cli, model, repository }, command, {
      BASH_ENV: join(home, "blocker.sh"),
    });
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
