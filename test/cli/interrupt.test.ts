import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

test.override({ git: true });

/** Whether `pid` is a running process (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

test("a second Ctrl-C kills a command that ignores SIGTERM, and prints the session id", async ({
  cli,
  model,
  repository,
}) => {
  // bash and its sleep outlive SIGTERM (bash notes it in term.received, the first Ctrl-C's mark);
  // their pids are written for the test to check. bash.pid, the first Ctrl-C's gate, is written
  // only once both traps are set: a SIGTERM before them would end the command on the first Ctrl-C.
  const command = [
    `trap "touch term.received" TERM`,
    `(trap "" TERM; echo $BASHPID > sleep.pid.partial; mv sleep.pid.partial sleep.pid; exec sleep 60) & sleep=$!`,
    `until [ -e sleep.pid ]; do :; done; echo $$ > bash.pid`,
    `while kill -0 $sleep; do wait $sleep; done`,
  ].join("; ");
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const result = await cli(["-p", "wait", "--allow-all-tools"], {
    onStart: (child) => {
      // Each Ctrl-C once what the one before it did shows: the command runs, then it got SIGTERM.
      let interrupts = 0;
      const poll = setInterval(() => {
        const shown = interrupts === 0 ? "bash.pid" : "term.received";
        if (existsSync(join(repository, shown))) {
          interrupts++;
          child.kill("SIGINT");
          if (interrupts === 2) {
            clearInterval(poll);
          }
        }
      }, 20);
    },
  });
  expect(result.code).toBe(130);
  // Trial 47 F7: the line names what stopped it.
  expect(result.stderr).toMatch(
    /\nturnloop: stopped at once by a second Ctrl-C; resume with --resume [0-9a-f-]{36}\n$/,
  );
  const pids = await Promise.all(
    ["bash.pid", "sleep.pid"].map(async (name) =>
      Number(await readFile(join(repository, name), "utf8")),
    ),
  );
  await expect.poll(() => pids.filter(running), { timeout: 10_000 }).toEqual([]);
});
