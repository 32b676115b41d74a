import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";

// Round 3 session 36: an instruction file whose `stat` failed with anything but "not found" (a
// self-linked `AGENTS.md`, `ln -s AGENTS.md AGENTS.md`: ELOOP; a path too long: ENAMETOOLONG)
// made every prompt end with `internal error: ELOOP …`. It is now refused as a FIFO is: a warning
// naming the file and the system's reason, the folder's next name tried, the prompt run
// (src/session/instructions.ts `isNoFile`). A `.github` that is a file holds no
// `copilot-instructions.md` (ENOTDIR): nothing to say. Real `turnloop -p` children.

test.override({ git: true });

/** The warning `-p` prints for an instruction file `path` that cannot be read for `reason`. */
const refused = (path: string, reason: string) =>
  `turnloop: warning: ${path} cannot be read: ${reason}; it was left out of the instructions (README, "Project files")`;

test("an AGENTS.md linked to itself is left out with a warning, CLAUDE.md read instead; the prompt runs", async ({
  cli,
  model,
  repository,
  loggedEvents,
}) => {
  const agents = join(repository, "AGENTS.md");
  await symlink("AGENTS.md", agents);
  await writeFile(join(repository, "CLAUDE.md"), "Use tabs.\n");
  // A subfolder whose `.github` is a file: no copilot-instructions.md there, and nothing said.
  await mkdir(join(repository, "sub"));
  await writeFile(join(repository, "sub", ".github"), "not a folder\n");
  model.enqueue({ text: "ok" }, { text: "ok again" });
  const result = await cli(["-p", "hi", "--cwd", join(repository, "sub")]);
  expect([result.code, result.stdout]).toEqual([0, "ok\n"]);
  const warning = refused(agents, `ELOOP: too many symbolic links encountered, stat '${agents}'`);
  expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual([warning]);
  expect(String(chatMessages(model, 0)[0]?.content)).toContain(
    `<instructions path="${join(repository, "CLAUDE.md")}">\nUse tabs.\n</instructions>`,
  );
  const events = await loggedEvents(printedSessionId(result.stderr));
  expect(events.filter((event) => event.type === "session.warning").map((e) => e.data)).toEqual([
    { warningType: "instructions_refused", message: warning.replace("turnloop: warning: ", "") },
  ]);

  // Every prompt runs, not only the first.
  const again = await cli(["-p", "hi again", "--cwd", join(repository, "sub")]);
  expect([again.code, again.stdout]).toEqual([0, "ok again\n"]);
});

test("a folder whose instruction files' paths are too long (ENAMETOOLONG) is said once, and the prompt runs", async ({
  cli,
  model,
  repository,
}) => {
  // Folders nested until the folder's path is 4,090 bytes: a path there with a name of ten or
  // more bytes (`/AGENTS.md`) is past Linux's PATH_MAX of 4,096 with its NUL.
  let deep = repository;
  while (deep.length < 4_090 - 201) {
    deep = join(deep, "d".repeat(200));
  }
  deep = join(deep, "e".repeat(4_090 - deep.length - 1));
  expect(deep.length).toBe(4_090);
  await mkdir(deep, { recursive: true });
  model.enqueue({ text: "ok" });
  const result = await cli(["-p", "hi", "--cwd", deep]);
  expect([result.code, result.stdout]).toEqual([0, "ok\n"]);
  // Each name is tried, each refused; the whole list once.
  const names = ["AGENTS.md", "CLAUDE.md", "GEMINI.md", join(".github", "copilot-instructions.md")];
  expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual(
    names.map((name) =>
      refused(join(deep, name), `ENAMETOOLONG: name too long, lstat '${join(deep, name)}'`),
    ),
  );
});
