import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";
import { groupGone, killTurnloopMidCommand } from "../support/killed-command.js";

// Trial 27f, finding 4: kill -9 of turnloop while `bash` ran left the command running; it wrote
// its marker after the session was resumed, while the model was told the call was interrupted
// (case 01: no side effect runs on after the call got a result). The reaper started with the
// first command (src/tools/group-reaper.ts) kills the command's whole group, grandchildren too.

test("kill -9 of turnloop mid-command kills the command and its grandchildren", async ({
  cli,
  model,
  repository,
}) => {
  const command =
    "(sleep 1; echo grandchild >> marker) & echo $$ > started.part && mv started.part started; sleep 1; echo finished >> marker";
  const group = await killTurnloopMidCommand({ cli, model, repository }, command);
  // Unreaped, the group lives on for a second and then writes the marker twice.
  await groupGone(group, 10_000);
  expect(existsSync(join(repository, "marker"))).toBe(false);
});
