/**
 * A sandboxed command is run again when bwrap failed in its mount setup, before the command
 * started (a mount below `/` went away while bwrap bound `/` recursively), and only then: the
 * runner tells by bwrap's `--json-status-fd` (bwrap(1): an `exit-code` object only once the
 * command ran), never by the text, which a command may print too. Real bubblewrap, behind a
 * stand-in `bwrap` that fails as a vanished mount makes it fail on its first run.
 */

import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandRequest } from "../../../src/tools/command-runner.js";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";

const sandboxReady = await requireSandbox();

/** What bwrap 0.8.0 prints when a mount below `/` vanished during its recursive bind. */
const VANISHED =
  'bwrap: Can\'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/tmp/gone": No such file or directory';

describe.skipIf(!sandboxReady)("a mount that vanished while bwrap set up", () => {
  let base: string;
  let workspace: string;
  let attempts: string;

  beforeEach(async () => {
    base = await mkdtemp("/var/tmp/turnloop-setup-retry-");
    workspace = join(base, "workspace");
    attempts = join(base, "attempts");
    await mkdir(join(base, "home"), { recursive: true });
    await mkdir(workspace);
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  /**
   * A `bwrap` that counts its runs and, on its first `failures` runs, fails as bwrap does when a
   * mount vanished: the sandbox's first process was cloned (`child-pid` on the status fd), the
   * command never started (no `exit-code`). Later runs are the real bwrap's.
   */
  async function vanishingBwrap(failures: number, message = VANISHED): Promise<string> {
    const path = join(base, "bwrap-vanishing");
    await writeFile(
      path,
      `#!/bin/sh
echo x >> ${JSON.stringify(attempts)}
if [ "$(wc -l < ${JSON.stringify(attempts)})" -le ${failures} ]; then
  previous=; fd=
  for argument in "$@"; do [ "$previous" = --json-status-fd ] && fd=$argument; previous=$argument; done
  [ -n "$fd" ] && eval "echo '{ \\"child-pid\\": 4242 }' >&$fd"
  echo ${JSON.stringify(message)} >&2
  exit 1
fi
exec bwrap "$@"
`,
    );
    await chmod(path, 0o755);
    return path;
  }

  function request(): CommandRequest {
    return {
      cwd: workspace,
      env: { PATH: "/usr/bin:/bin" },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(base, "output.txt"),
      secrets: [],
    };
  }

  async function runs(): Promise<number> {
    return (await readFile(attempts, "utf8")).split("\n").filter(Boolean).length;
  }

  it.for([
    VANISHED,
    // A bound source (another program's `.git/hooks` under /tmp, the workspace `/`) removed after
    // bwrap resolved it and before it bound it: a clean clone's CI saw this one.
    "bwrap: Can't get type of source /tmp/turnloop-repo-8MVn71/.git/hooks: No such file or directory",
  ])(
    "runs the command again, and the model reads the command's own output (%s)",
    async (message) => {
      const runner = new SandboxedRunner("workspace-write", {
        home: join(base, "home"),
        turnloopHome: join(base, "home", ".turnloop"),
        bwrapPath: await vanishingBwrap(1, message),
      });
      const result = await runner.run("echo ran; exit 4", request());
      expect(result).toEqual({ exitCode: 4, signal: null, output: "ran\n", truncated: false });
      expect(await runs()).toBe(2);
    },
  );

  it("a .git folder removed between the arguments and bwrap: the real bwrap fails, the next run's arguments leave it out", async () => {
    const gone = join(workspace, "org", "repo", ".git");
    await mkdir(join(gone, "hooks"), { recursive: true });
    // On its first run, removes the git folder the arguments bind, then runs the real bwrap.
    const path = join(base, "bwrap-removing");
    await writeFile(
      path,
      `#!/bin/sh
echo x >> ${JSON.stringify(attempts)}
[ "$(wc -l < ${JSON.stringify(attempts)})" -le 1 ] && rm -rf ${JSON.stringify(gone)}
exec bwrap "$@"
`,
    );
    await chmod(path, 0o755);
    const runner = new SandboxedRunner("workspace-write", {
      home: join(base, "home"),
      turnloopHome: join(base, "home", ".turnloop"),
      bwrapPath: path,
    });
    const result = await runner.run("echo ran", request());
    expect(result).toEqual({ exitCode: 0, signal: null, output: "ran\n", truncated: false });
    expect(await runs()).toBe(2);
  });

  it("gives bwrap's error after three runs when the mounts keep vanishing", async () => {
    const runner = new SandboxedRunner("workspace-write", {
      home: join(base, "home"),
      turnloopHome: join(base, "home", ".turnloop"),
      bwrapPath: await vanishingBwrap(5),
    });
    const result = await runner.run("echo ran", request());
    expect(result).toEqual({
      exitCode: 1,
      signal: null,
      output: `${VANISHED}\n`,
      truncated: false,
    });
    expect(await runs()).toBe(3);
  });

  it("never runs again a command that started and printed the same words", async () => {
    const runner = new SandboxedRunner("workspace-write", {
      home: join(base, "home"),
      turnloopHome: join(base, "home", ".turnloop"),
      bwrapPath: await vanishingBwrap(0),
    });
    const result = await runner.run(`echo ${JSON.stringify(VANISHED)} >&2; exit 1`, request());
    expect(result).toEqual({
      exitCode: 1,
      signal: null,
      output: `${VANISHED}\n`,
      truncated: false,
    });
    expect(await runs()).toBe(1);
  });
});
