import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial: `-p --resume <id>` from another folder ran the prompt in the session's
// own folder without a word. It still works there (a session's tools and files belong to its
// folder), and now says so on stderr, once; from the session's own folder nothing is said. A
// `--cwd` naming another folder than the session's is refused (exit 64): a session keeps its folder.

describe("-p --resume from another folder", () => {
  test("names the session's folder once on stderr; from its own folder, nothing", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({ text: "first" }, { text: "second" }, { text: "third" });
    const first = await cli(["-p", "hi"]);
    expect(first.code).toBe(0);
    const id = printedSessionId(first.stderr);
    const elsewhere = await mkdtemp(join(tmpdir(), "turnloop-elsewhere-"));
    try {
      const away = await cli(["-p", "again", "-q", "--resume", id], { cwd: elsewhere });
      expect(away).toEqual({
        code: 0,
        signal: null,
        stdout: "second\n",
        stderr: `turnloop: resuming session ${id} in ${repository}\n`,
      });
      const home = await cli(["-p", "more", "-q", "--resume", id]);
      expect(home).toEqual({ code: 0, signal: null, stdout: "third\n", stderr: "" });
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  test("--cwd naming another folder is a usage error before anything is stored; --cwd naming the session's own folder is fine", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    model.enqueue({ text: "first" }, { text: "second" });
    const id = printedSessionId((await cli(["-p", "hi"])).stderr);
    const before = await loggedEvents(id);
    const elsewhere = await mkdtemp(join(tmpdir(), "turnloop-elsewhere-"));
    try {
      const refused = await cli(["-p", "again", "--resume", id, "--cwd", elsewhere]);
      expect(refused).toEqual({
        code: 64,
        signal: null,
        stdout: "",
        stderr:
          `turnloop: --cwd ${elsewhere}: session ${id} works in ${repository}; resume it without ` +
          `--cwd, or start a new session in ${elsewhere}\n`,
      });
      expect(await loggedEvents(id)).toEqual(before);
      expect(model.requests).toHaveLength(1);
      const same = await cli(["-p", "again", "-q", "--resume", id, "--cwd", repository], {
        cwd: elsewhere,
      });
      expect(same).toEqual({ code: 0, signal: null, stdout: "second\n", stderr: "" });
      // A fresh user's check: a link to the session's folder is that folder, not another.
      const link = join(elsewhere, "link");
      await symlink(repository, link);
      model.enqueue({ text: "third" });
      const linked = await cli(["-p", "again", "-q", "--resume", id, "--cwd", link], {
        cwd: elsewhere,
      });
      expect(linked).toEqual({ code: 0, signal: null, stdout: "third\n", stderr: "" });
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  // A fresh user's check: the interactive face opened the session and ran it in its own folder,
  // although --cwd named another; it is refused as -p refuses it (one check, session/).
  test("the interactive face refuses --resume with a --cwd naming another folder, as -p does", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    model.enqueue({ text: "first" });
    const id = printedSessionId((await cli(["-p", "hi"])).stderr);
    const before = await loggedEvents(id);
    const elsewhere = await mkdtemp(join(tmpdir(), "turnloop-elsewhere-"));
    try {
      const refused = await cli(["--resume", id, "--cwd", elsewhere]);
      expect(refused).toEqual({
        code: 64,
        signal: null,
        stdout: "",
        stderr:
          `turnloop: --cwd ${elsewhere}: session ${id} works in ${repository}; resume it without ` +
          `--cwd, or start a new session in ${elsewhere}\n`,
      });
      expect(await loggedEvents(id)).toEqual(before);
      expect(model.requests).toHaveLength(1);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
