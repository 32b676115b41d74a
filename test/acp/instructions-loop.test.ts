import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { AcpHarness } from "./support.js";
import { chunkTextsAndKinds } from "./update-texts.js";

/*
 * Round 3 session 36: a project's `AGENTS.md` that links to itself made every prompt of an
 * editor's session fail (`-32603`, `ELOOP … stat`), since reading the instructions threw before
 * the prompt was stored. A file that cannot be read is now left out with a warning, as a FIFO is
 * (session/instructions.ts `isNoFile`, tools/project-file.ts `readProjectFile`): the editor is
 * told once and the prompt runs.
 */

test("an AGENTS.md that links to itself is left out with a warning; the prompt runs", async () => {
  const harness = await AcpHarness.start();
  const sessionId = await harness.newSession();
  const agents = join(harness.cwd, "AGENTS.md");
  await symlink("AGENTS.md", agents);
  try {
    harness.server.enqueue({ text: "fine" }, { text: "again" });
    expect(await harness.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(await harness.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
  } finally {
    await rm(agents);
  }
  const warning = `${agents} cannot be read: ELOOP: too many symbolic links encountered, stat '${agents}'; it was left out of the instructions (README, "Project files")`;
  // Told once, before the first answer; the second prompt says nothing of it again.
  expect(chunkTextsAndKinds(harness.updates(sessionId))).toEqual([
    "available_commands_update",
    `⚠ ${warning}\n`,
    "session_info_update",
    "fine",
    "usage_update",
    "again",
    "usage_update",
  ]);
  expect(harness.server.requests).toHaveLength(2);
});
