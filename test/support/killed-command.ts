/**
 * What the tests of `kill -9` of turnloop mid-command share (test/cli/killed-turnloop-command and
 * test/cli/reaper-environment, the reaper of src/tools/group-reaper.ts): a `-p` run whose model
 * asks for one `bash` command, turnloop killed with SIGKILL once the command has started, and a
 * wait for the command's process group to be gone.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { whenFileExists } from "./cli.js";
import type { CliFixtures } from "./fixtures.js";

/**
 * Runs `turnloop -p "run it" --yolo` (the fixture's `cli`, with `env` added) while the fixture's
 * `model` answers with one `bash` call of `command`, and kills turnloop with SIGKILL once the
 * repository holds the file `started`. `command` writes its process group's id there whole once
 * it has started: `echo $$ > started.part && mv started.part started` (its bash leads the group).
 * Asserts that the run ended by that SIGKILL. @returns the command's process group id.
 */
export async function killTurnloopMidCommand(
  { cli, model, repository }: Pick<CliFixtures, "cli" | "model" | "repository">,
  command: string,
  env: NodeJS.ProcessEnv = {},
): Promise<number> {
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const started = join(repository, "started");
  const run = await cli(["-p", "run it", "--yolo"], {
    env,
    onStart: (child) => whenFileExists(started, child, () => child.kill("SIGKILL")),
  });
  expect(run.signal).toBe("SIGKILL");
  return Number((await readFile(started, "utf8")).trim());
}

/** Resolves once no process of the group led by `pid` is left; rejects after `limitMs`. */
export async function groupGone(pid: number, limitMs: number): Promise<void> {
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
