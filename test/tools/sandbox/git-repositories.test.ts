/**
 * Git repositories a sandboxed command could plant a hook in, where the hook runs later outside
 * the sandbox (the last session's note, "left alone"): a `.git` the command makes (`git init sub`,
 * or in a workspace that had none), a repository in a folder of the workspace, a linked worktree's
 * `.git` file and its `config.worktree`. Real git, real bubblewrap, through the runner.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, git, removed, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)(
  "workspace-write: git repositories the command makes or reaches",
  () => {
    let fixture: SandboxFixture;
    let project: string;

    beforeEach(async () => {
      fixture = await createSandboxFixture();
      project = await mkdtemp(join(fixture.base, "project-"));
    });

    afterEach(async () => {
      await fixture?.remove();
    });

    const run = (command: string, cwd: string, additionalDirectories: string[] = []) =>
      new SandboxedRunner("workspace-write", {
        home: fixture.home,
        turnloopHome: fixture.turnloopHome,
        additionalDirectories,
      }).run(command, {
        cwd,
        env: fixture.env,
        signal: new AbortController().signal,
        timeoutMs: 60_000,
        savePath: join(fixture.outside, "output.txt"),
        secrets: [],
      });

    it("git init sub and a hook in it: the repository is removed when the command ends", async () => {
      const result = await run(
        "git init -q sub && echo 'echo evil' > sub/.git/hooks/pre-commit && echo planted",
        fixture.workspace,
      );
      expect(result.output).toBe("planted\n");
      expect(result.sandboxLimit).toBe(removed(join(fixture.workspace, "sub", ".git")));
      expect(existsSync(join(fixture.workspace, "sub"))).toBe(true);
      expect(existsSync(join(fixture.workspace, "sub", ".git"))).toBe(false);
    });

    it("a workspace without a .git: one made at its root, or a .git file in a folder, is removed", async () => {
      const result = await run(
        'git init -q && mkdir -p app evil/hooks && echo "gitdir: $PWD/evil" > app/.git && echo made',
        project,
      );
      expect(result.output).toBe("made\n");
      expect(result.sandboxLimit).toBe(
        removed(join(project, ".git"), join(project, "app", ".git")),
      );
      expect(existsSync(join(project, ".git"))).toBe(false);
      expect(existsSync(join(project, "app", ".git"))).toBe(false);
    });

    it("a repository below the root: its hooks and config are read-only, its .git cannot move", async () => {
      const library = join(project, "library");
      await mkdir(library, { recursive: true });
      git(library, "init", "-q");
      const hook = join(library, ".git", "hooks", "pre-commit");
      const result = await run(
        "echo 'echo evil' > library/.git/hooks/pre-commit; " +
          "git -C library config core.fsmonitor evil; mv library/.git moved",
        project,
      );
      expect(result.output).toBe(
        "bash: line 1: library/.git/hooks/pre-commit: Read-only file system\n" +
          "error: could not write config file .git/config: Device or resource busy\n" +
          "mv: cannot move 'library/.git' to 'moved': Device or resource busy\n",
      );
      expect(existsSync(hook)).toBe(false);
      expect(await readFile(join(library, ".git", "config"), "utf8")).not.toContain("evil");
    });

    it("a repository two folders down (org1/repoA): hooks and config read-only, a new one removed; the user's later git commit runs nothing planted", async () => {
      const repositoryA = join(project, "org1", "repoA");
      await mkdir(repositoryA, { recursive: true });
      git(repositoryA, "init", "-q");
      const marker = join(fixture.outside, "planted-ran");
      const result = await run(
        `printf '#!/bin/sh\\ntouch ${marker}\\n' > org1/repoA/.git/hooks/pre-commit; ` +
          `git -C org1/repoA config core.fsmonitor 'touch ${marker}'; ` +
          "git init -q org1/repoB && echo 'echo evil' > org1/repoB/.git/hooks/pre-commit && echo made",
        project,
      );
      expect(result.output).toBe(
        "bash: line 1: org1/repoA/.git/hooks/pre-commit: Read-only file system\n" +
          "error: could not write config file .git/config: Device or resource busy\n" +
          "made\n",
      );
      expect(result.sandboxLimit).toBe(removed(join(project, "org1", "repoB", ".git")));
      git(repositoryA, "commit", "-q", "--allow-empty", "-m", "later, outside the sandbox");
      expect(existsSync(marker)).toBe(false);
    });

    it("a repository four folders down and a submodule's .git file in it: protected as the top one; a repository made that deep is removed", async () => {
      // A trial (session 31's notes): `.git` was looked for two folders down, so a hook planted in
      // `vendor/libs/parser/core/.git/hooks` ran at the user's next commit there.
      const deep = join(project, "vendor", "libs", "parser", "core");
      await mkdir(deep, { recursive: true });
      git(deep, "init", "-q");
      // A submodule's `.git` file, deeper still, pointing at a git folder of the deep repository.
      const moduleFolder = join(deep, ".git", "modules", "grammar");
      await mkdir(join(moduleFolder, "hooks"), { recursive: true });
      await writeFile(join(moduleFolder, "HEAD"), "ref: refs/heads/main\n");
      await writeFile(join(moduleFolder, "config"), "[core]\n");
      await mkdir(join(deep, "src", "grammar"), { recursive: true });
      await writeFile(join(deep, "src", "grammar", ".git"), `gitdir: ${moduleFolder}\n`);
      const marker = join(fixture.outside, "planted-ran");
      const core = "vendor/libs/parser/core";
      const result = await run(
        `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${core}/.git/hooks/pre-commit; ` +
          `git -C ${core} config core.fsmonitor 'touch ${marker}'; ` +
          `echo 'echo evil' > ${core}/.git/modules/grammar/hooks/post-checkout; ` +
          `echo "gitdir: $PWD/elsewhere" > ${core}/src/grammar/.git; ` +
          "git init -q a/b/c/d && echo made",
        project,
      );
      expect(result.output).toBe(
        `bash: line 1: ${core}/.git/hooks/pre-commit: Read-only file system\n` +
          "error: could not write config file .git/config: Device or resource busy\n" +
          `bash: line 1: ${core}/.git/modules/grammar/hooks/post-checkout: Read-only file system\n` +
          `bash: line 1: ${core}/src/grammar/.git: Read-only file system\n` +
          "made\n",
      );
      expect(result.sandboxLimit).toBe(removed(join(project, "a", "b", "c", "d", ".git")));
      git(deep, "commit", "-q", "--allow-empty", "-m", "later, outside the sandbox");
      expect(existsSync(marker)).toBe(false);
      expect(await readFile(join(deep, "src", "grammar", ".git"), "utf8")).toBe(
        `gitdir: ${moduleFolder}\n`,
      );
    });

    it("a repository below the root whose folder is moved away: the new one made in its place is removed, the moved one kept", async () => {
      const library = join(project, "library");
      await mkdir(library, { recursive: true });
      git(library, "init", "-q");
      const result = await run(
        "mv library moved && mkdir library && git init -q library && " +
          "echo 'echo evil' > library/.git/hooks/post-checkout && echo planted",
        project,
      );
      expect(result.output).toBe("planted\n");
      expect(result.sandboxLimit).toBe(removed(join(library, ".git")));
      expect(existsSync(join(library, ".git"))).toBe(false);
      expect(existsSync(join(project, "moved", ".git", "HEAD"))).toBe(true);
    });

    it(".git/hooks that is a symbolic link: the link replaced is put back, a hooks folder made where it led is removed", async () => {
      git(project, "init", "-q");
      await mkdir(join(project, "tools", "hooks"), { recursive: true });
      await rm(join(project, ".git", "hooks"), { recursive: true });
      await symlink("../tools/hooks", join(project, ".git", "hooks"));
      const replaced = await run(
        "rm .git/hooks && mkdir .git/hooks && echo 'echo evil' > .git/hooks/pre-commit && echo planted",
        project,
      );
      expect(replaced.output).toBe("planted\n");
      expect(replaced.sandboxLimit).toContain(
        `it put back the symbolic link ${join(project, ".git", "hooks")} (to ../tools/hooks), which the command replaced`,
      );
      expect(await readlink(join(project, ".git", "hooks"))).toBe("../tools/hooks");
      const moved = await run(
        "mv tools moved && mkdir -p tools/hooks && echo 'echo evil' > tools/hooks/pre-commit && echo planted",
        project,
      );
      expect(moved.output).toBe("planted\n");
      expect(moved.sandboxLimit).toBe(removed(join(project, "tools", "hooks")));
      expect(existsSync(join(project, "tools", "hooks"))).toBe(false);
    });

    it("a linked worktree: its .git file cannot be pointed elsewhere, nor config.worktree made", async () => {
      const main = join(project, "main");
      const worktree = join(project, "worktree");
      await mkdir(main);
      git(main, "init", "-q");
      git(main, "config", "extensions.worktreeConfig", "true");
      await writeFile(join(main, "README"), "main\n");
      git(main, "add", "README");
      git(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first");
      git(main, "worktree", "add", "-q", worktree);
      const pointer = await readFile(join(worktree, ".git"), "utf8");
      const result = await run(
        'mkdir -p evil/hooks && echo "gitdir: $PWD/evil" > .git; ' +
          `printf '[core]\\n\\thooksPath = evil/hooks\\n' > "$(git rev-parse --git-dir)/config.worktree" && ` +
          "git status --short && echo written",
        worktree,
        [main],
      );
      expect(result.output).toBe("bash: line 1: .git: Read-only file system\nwritten\n");
      expect(await readFile(join(worktree, ".git"), "utf8")).toBe(pointer);
      const worktreeConfig = join(main, ".git", "worktrees", "worktree", "config.worktree");
      expect(result.sandboxLimit).toBe(removed(worktreeConfig));
      expect(existsSync(worktreeConfig)).toBe(false);
      const mainHook = await run("echo x > ../main/.git/hooks/pre-commit", worktree, [main]);
      expect(mainHook.output).toBe(
        "bash: line 1: ../main/.git/hooks/pre-commit: Read-only file system\n",
      );
    });
  },
);
