import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 16, #18): a session whose folder had been removed (or a
// log imported from another machine) was resumed without a word, and every tool then failed in
// it. Every face opens a resumed session through the session host, which now refuses it there,
// naming the folder, before any model request (src/session/host.ts `open`: `SessionFolderGoneError`).

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

/** A session made in a folder that is then removed: its id and the folder's path. */
async function sessionOfRemovedFolder({
  cli,
  model,
}: Pick<CliFixtures, "cli" | "model">): Promise<{ id: string; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-gone-"));
  folders.push(folder);
  model.enqueue({ text: "first" });
  const first = await cli(["-p", "hi"], { cwd: folder });
  expect(first.code, first.stderr).toBe(0);
  await rm(folder, { recursive: true });
  return { id: printedSessionId(first.stderr), folder };
}

const refusal = (id: string, folder: string) =>
  `session ${id} works in ${folder}, which is not an existing directory here; create or restore it to resume the session`;

describe("a session whose folder is gone is not resumed", () => {
  test("-p --resume: a usage error naming the folder, before any request, the log unchanged; resumed once the folder is back", async ({
    cli,
    home,
    model,
  }) => {
    const { id, folder } = await sessionOfRemovedFolder({ cli, model });
    const log = join(home, "session-state", id, "events.jsonl");
    const before = await readFile(log, "utf8");
    const refused = await cli(["-p", "go", "--resume", id]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toBe(`turnloop: ${refusal(id, folder)}\n`);
    expect(model.requests).toHaveLength(1);
    // A refused resume writes nothing, not even a session.resume (session-18 brief #11).
    expect(await readFile(log, "utf8")).toBe(before);
    await mkdir(folder);
    model.enqueue({ text: "back" });
    const resumed = await cli(["-p", "go", "--resume", id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("back\n");
  });

  // A trial of session 17's build (round 3, session 18, #6): with --cwd naming another folder,
  // the refusal said to resume without --cwd, which then failed on the gone folder.
  test("-p --resume --cwd <another folder>: the refusal names the session's gone folder and that it must be restored", async ({
    cli,
    model,
    repository,
  }) => {
    const { id, folder } = await sessionOfRemovedFolder({ cli, model });
    const refused = await cli(["-p", "go", "--resume", id, "--cwd", repository]);
    expect([refused.code, refused.stderr]).toEqual([
      64,
      `turnloop: --cwd ${repository}: session ${id} works in ${folder}, which is not an existing directory here; create or restore it, then resume it without --cwd; or start a new session in ${repository}\n`,
    ]);
    expect(model.requests).toHaveLength(1);
  });

  // A trial of session 17's build (round 3, session 18, #8): `turnloop sessions` listed such a
  // session as any other, and `sessions show` did not say either.
  test("turnloop sessions marks it (folder gone); sessions show says what to do", async ({
    cli,
    model,
  }) => {
    const { id, folder } = await sessionOfRemovedFolder({ cli, model });
    const listed = await cli(["sessions"]);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id}  .*  1 turn  ${folder} \\(folder gone\\)\n    hi\n$`),
    );
    const shown = await cli(["sessions", "show", id]);
    expect(shown.stdout.trimEnd().split("\n").at(-1)).toBe(
      `(its folder ${folder} is gone: create or restore it to resume the session)`,
    );
    await mkdir(folder);
    expect((await cli(["sessions"])).stdout).not.toContain("(folder gone)");
  });

  test("the interactive --resume and /resume say so; /resume keeps the session it had", async ({
    cli,
    model,
  }) => {
    const { id, folder } = await sessionOfRemovedFolder({ cli, model });
    const started = await cli(["--resume", id], { stdin: "hello\n" });
    expect(started.code).toBe(64);
    expect(started.stderr).toContain(refusal(id, folder));
    model.enqueue({ text: "still here" });
    const switched = await cli([], { stdin: `/resume ${id}\nhello\n` });
    expect(switched.code, switched.stderr).toBe(0);
    expect(`${switched.stdout}${switched.stderr}`).toContain(refusal(id, folder));
    expect(switched.stdout).toContain("still here");
    expect(model.requests).toHaveLength(2);
  });
});
