/**
 * The files through which git finds a repository's config and hooks (gitrepository-layout(5):
 * `commondir`, `config.worktree`, a linked worktree's `worktrees/<id>/{commondir,gitdir}`, the git
 * folders in `modules/` and `worktrees/`): a sandboxed command must not point git at a config of
 * its own, which would run a program (`core.fsmonitor`) at the user's next `git status` outside
 * the sandbox (a fresh user's check, finding 1). Real git, real bubblewrap, through the runner.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, git, removed, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** A repository in `folder` with one commit. */
async function repository(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  git(folder, "init", "-q");
  await writeFile(join(folder, "README"), "readme\n");
  git(folder, "add", "README");
  git(folder, "commit", "-q", "-m", "first");
}

describe.skipIf(!sandboxReady)("workspace-write: where git finds config and hooks", () => {
  let fixture: SandboxFixture;
  let project: string;
  let marker: string;

  beforeEach(async () => {
    fixture = await createSandboxFixture();
    project = await mkdtemp(join(fixture.base, "project-"));
    marker = join(fixture.outside, "fsmonitor-ran");
  });

  afterEach(async () => {
    await fixture?.remove();
  });

  const run = (command: string, cwd: string) =>
    new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
    }).run(command, {
      cwd,
      env: fixture.env,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.outside, "output.txt"),
      secrets: [],
    });

  /** Writes a config with `core.fsmonitor` touching {@link marker} into `folder` (shell text). */
  const evilConfig = (folder: string) =>
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ${marker}; false"\\n' > ${folder}`;

  it(".git/commondir and .git/config.worktree the command makes are removed; git status then runs nothing", async () => {
    await repository(project);
    const result = await run(
      "mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && " +
        `${evilConfig("evil/config")} && echo "$PWD/evil" > .git/commondir && ` +
        `git config extensions.worktreeConfig true 2>/dev/null; ${evilConfig(".git/config.worktree")} && ` +
        "echo written",
      project,
    );
    expect(result.output).toBe("written\n");
    expect(result.sandboxLimit).toBe(
      removed(join(project, ".git", "config.worktree"), join(project, ".git", "commondir")),
    );
    expect(existsSync(join(project, ".git", "commondir"))).toBe(false);
    expect(existsSync(join(project, ".git", "config.worktree"))).toBe(false);
    git(project, "status", "--short");
    expect(existsSync(marker)).toBe(false);
  });

  it("a linked worktree's commondir and gitdir are read-only; git folders made in worktrees/ and modules/ are removed", async () => {
    await repository(project);
    const worktree = join(fixture.base, "linked");
    git(project, "worktree", "add", "-q", worktree);
    const admin = join(project, ".git", "worktrees", "linked");
    const commondir = await readFile(join(admin, "commondir"), "utf8");
    const result = await run(
      "echo /elsewhere > .git/worktrees/linked/commondir; echo /elsewhere > .git/worktrees/linked/gitdir; " +
        "mv .git/worktrees/linked .git/worktrees/moved; " +
        "mkdir -p .git/worktrees/other .git/modules/planted && echo ../.. > .git/worktrees/other/commondir && " +
        `cp .git/HEAD .git/modules/planted/ && ${evilConfig(".git/modules/planted/config")} && echo made`,
      project,
    );
    expect(result.output).toBe(
      "bash: line 1: .git/worktrees/linked/commondir: Read-only file system\n" +
        "bash: line 1: .git/worktrees/linked/gitdir: Read-only file system\n" +
        "mv: cannot move '.git/worktrees/linked' to '.git/worktrees/moved': Device or resource busy\n" +
        "made\n",
    );
    expect(await readFile(join(admin, "commondir"), "utf8")).toBe(commondir);
    expect(result.sandboxLimit).toBe(
      removed(
        join(project, ".git", "modules", "planted"),
        join(project, ".git", "worktrees", "other"),
      ),
    );
    expect(existsSync(join(project, ".git", "modules", "planted"))).toBe(false);
    expect(existsSync(join(project, ".git", "worktrees", "other"))).toBe(false);
    git(worktree, "status", "--short");
    expect(existsSync(marker)).toBe(false);
    const refused = await run("echo /elsewhere > .git/worktrees/linked/commondir", project);
    expect(refused.sandboxLimit).toBe(
      "the sandbox keeps .git's commondir, gitdir and config.worktree read-only whatever the " +
        "settings: git follows them to the config and hooks it reads and runs later, outside the " +
        "sandbox (Read-only file system)",
    );
  });
});
