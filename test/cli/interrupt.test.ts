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
  // bash and its sleep ignore SIGTERM; their pids are written for the test to check.
  const command = `trap "" TERM; sleep 60 & echo $! > sleep.pid; echo $$ > bash.pid; wait`;
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const result = await cli(["-p", "wait", "--allow-all-tools"], {
    onStart: (child) => {
      const poll = setInterval(() => {
        if (existsSync(join(repository, "bash.pid"))) {
          clearInterval(poll);
          child.kill("SIGINT");
          setTimeout(() => child.kill("SIGINT"), 200);
        }
      }, 20);
    },
  });
  expect(result.code).toBe(130);
  expect(result.stderr).toMatch(/turnloop: stopped; resume with --resume [0-9a-f-]{36}\n$/);
  const pids = await Promise.all(
    ["bash.pid", "sleep.pid"].map(async (name) =>
      Number(await readFile(join(repository, name), "utf8")),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(pids.filter(running)).toEqual([]);
});
