import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

// Trial 27f, finding 4: kill -9 of turnloop while `bash` ran left the command running; it wrote
// its marker after the session was resumed, while the model was told the call was interrupted
// (case 01: no side effect runs on after the call got a result). The reaper started with the
// first command (src/tools/group-reaper.ts) kills the command's whole group, grandchildren too.

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

test("kill -9 of turnloop mid-command kills the command and its grandchildren", async ({
  cli,
  model,
  repository,
}) => {
  const command =
    "(sleep 1; echo grandchild >> marker) & echo $$ > started.part && mv started.part started; sleep 1; echo finished >> marker";
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const run = await cli(["-p", "run it", "--yolo"], {
    onStart: (child) =>
      whenFileExists(join(repository, "started"), child, () => child.kill("SIGKILL")),
  });
  expect(run.signal).toBe("SIGKILL");
  const group = Number((await readFile(join(repository, "started"), "utf8")).trim());
  // Unreaped, the group lives on for a second and then writes the marker twice.
  await groupGone(group, 10_000);
  expect(existsSync(join(repository, "marker"))).toBe(false);
});
