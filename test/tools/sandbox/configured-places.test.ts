/**
 * The hooks folder a repository's `core.hooksPath` names inside the workspace (husky: `.husky`,
 * or `.husky/_` whose hooks run the scripts in `.husky`): a sandboxed command must not write a
 * hook there that git runs at the user's next commit, outside the sandbox (a fresh user's check,
 * finding 3). Real git, real bubblewrap, through the runner.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, git, removed, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** What the sandbox says of a write refused in `folder`, as policy.ts words it. */
function keeps(folder: string): string {
  return (
    `the sandbox keeps ${folder} read-only whatever the settings: a repository's core.hooksPath ` +
    "names it, and git runs the hooks there later, outside the sandbox (Read-only file system)"
  );
}

describe.skipIf(!sandboxReady)("workspace-write: the hooks folder core.hooksPath names", () => {
  let fixture: SandboxFixture;
  let project: string;
  let marker: string;

  beforeEach(async () => {
    fixture = await createSandboxFixture();
    project = await mkdtemp(join(fixture.base, "project-"));
    marker = join(fixture.outside, "hook-ran");
    git(project, "init", "-q");
  });

  afterEach(async () => {
    await fixture?.remove();
  });

  const run = (command: string, configHome?: string) =>
    new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
      ...(configHome === undefined ? {} : { configHome }),
    }).run(command, {
      cwd: project,
      env: fixture.env,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.outside, "output.txt"),
      secrets: [],
    });

  const plant = (hook: string) =>
    `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${hook} && chmod +x ${hook}`;

  it("husky 4–8 (.husky): the folder is read-only and cannot be moved; the next commit runs no hook", async () => {
    git(project, "config", "core.hooksPath", ".husky");
    await mkdir(join(project, ".husky"));
    const result = await run(`${plant(".husky/pre-commit")}; mv .husky moved`);
    expect(result.output).toBe(
      "bash: line 1: .husky/pre-commit: Read-only file system\n" +
        "mv: cannot move '.husky' to 'moved': Device or resource busy\n",
    );
    expect(result.sandboxLimit).toBe(keeps(join(project, ".husky")));
    git(project, "commit", "-q", "--allow-empty", "-m", "next");
    expect(existsSync(marker)).toBe(false);
  });

  it("husky 9 (.husky/_): both .husky/_ and .husky, whose scripts its hooks run, are read-only", async () => {
    git(project, "config", "core.hooksPath", ".husky/_");
    await mkdir(join(project, ".husky", "_"), { recursive: true });
    await writeFile(join(project, ".husky", "_", "h"), "#!/bin/sh\n");
    const result = await run(`${plant(".husky/pre-commit")}; ${plant(".husky/_/pre-commit")}`);
    expect(result.output).toBe(
      "bash: line 1: .husky/pre-commit: Read-only file system\n" +
        "bash: line 1: .husky/_/pre-commit: Read-only file system\n",
    );
    expect(existsSync(join(project, ".husky", "pre-commit"))).toBe(false);
    expect(existsSync(join(project, ".husky", "_", "pre-commit"))).toBe(false);
  });

  it("a config file the config includes (include.path) is read-only; a missing one made is removed", async () => {
    git(project, "config", "--add", "include.path", "../shared.gitconfig");
    git(project, "config", "--add", "include.path", "../missing.gitconfig");
    await writeFile(join(project, "shared.gitconfig"), "[alias]\n\tst = status\n");
    const evil = `[core]\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;
    const result = await run(
      `printf '${evil}' >> shared.gitconfig; printf '${evil}' > missing.gitconfig && echo made`,
    );
    expect(result.output).toBe("bash: line 1: shared.gitconfig: Read-only file system\nmade\n");
    expect(result.sandboxLimit).toBe(removed(join(project, "missing.gitconfig")));
    git(project, "status", "--short");
    expect(existsSync(marker)).toBe(false);
    const refused = await run(`printf '${evil}' >> shared.gitconfig`);
    expect(refused.sandboxLimit).toBe(
      `the sandbox keeps ${join(project, "shared.gitconfig")} read-only whatever the settings: a ` +
        "repository's config includes it (include.path), and git reads it as config later, " +
        "outside the sandbox (core.fsmonitor, aliases run programs) (Read-only file system)",
    );
  });

  it("a file an included file includes is read-only too (a fresh user's check)", async () => {
    git(project, "config", "--add", "include.path", "../shared.gitconfig");
    await writeFile(join(project, "shared.gitconfig"), "[include]\n\tpath = nested.gitconfig\n");
    await writeFile(join(project, "nested.gitconfig"), "[alias]\n\tst = status\n");
    const evil = `[core]\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;
    const result = await run(`printf '${evil}' >> nested.gitconfig`);
    expect(result.output).toBe("bash: line 1: nested.gitconfig: Read-only file system\n");
    git(project, "status", "--short");
    expect(existsSync(marker)).toBe(false);
  });

  it("the hooks folder the user's own ~/.gitconfig names is read-only too (a fresh user's check)", async () => {
    await writeFile(join(fixture.home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    await mkdir(join(project, ".githooks"));
    const result = await run(plant(".githooks/pre-commit"));
    expect(result.output).toBe("bash: line 1: .githooks/pre-commit: Read-only file system\n");
    expect(existsSync(join(project, ".githooks", "pre-commit"))).toBe(false);
  });

  it("the hooks folder and included file $XDG_CONFIG_HOME/git/config names are read-only too", async () => {
    const configHome = join(fixture.base, "xdg");
    await mkdir(join(configHome, "git"), { recursive: true });
    await writeFile(
      join(configHome, "git", "config"),
      `[core]\n\thooksPath = .githooks\n[include]\n\tpath = ${join(project, "user.gitconfig")}\n`,
    );
    await mkdir(join(project, ".githooks"));
    await writeFile(join(project, "user.gitconfig"), "[alias]\n\tst = status\n");
    const result = await run(
      `${plant(".githooks/pre-commit")}; echo >> user.gitconfig`,
      configHome,
    );
    expect(result.output).toBe(
      "bash: line 1: .githooks/pre-commit: Read-only file system\n" +
        "bash: line 1: user.gitconfig: Read-only file system\n",
    );
    expect(result.sandboxLimit).toBe(keeps(join(project, ".githooks")));
    expect(existsSync(join(project, ".githooks", "pre-commit"))).toBe(false);
  });

  it("a hooks folder that is a symbolic link: the link replaced is put back, what it leads through is fixed", async () => {
    git(project, "config", "core.hooksPath", ".husky");
    await mkdir(join(project, "cfg", "husky"), { recursive: true });
    await symlink("cfg/husky", join(project, ".husky"));
    const moved = await run(`mv cfg cfg.old; ${plant("cfg/husky/pre-commit")}`);
    expect(moved.output).toBe(
      "mv: cannot move 'cfg' to 'cfg.old': Device or resource busy\n" +
        "bash: line 1: cfg/husky/pre-commit: Read-only file system\n",
    );
    expect(moved.sandboxLimit).toBe(keeps(join(project, "cfg", "husky")));
    const result = await run(
      `rm .husky && mkdir .husky && ${plant(".husky/pre-commit")} && echo planted`,
    );
    expect(result.output).toBe("planted\n");
    expect(result.sandboxLimit).toBe(
      "the sandbox keeps .git read-only whatever the settings: git runs a repository's hooks and " +
        "reads its config later, outside the sandbox, so a command cannot make one or change " +
        `where git finds them; it put back the symbolic link ${join(project, ".husky")} (to ` +
        "cfg/husky), which the command replaced",
    );
    expect(await readlink(join(project, ".husky"))).toBe("cfg/husky");
    git(project, "commit", "-q", "--allow-empty", "-m", "next");
    expect(existsSync(marker)).toBe(false);
  });

  it("an included config file that is a symbolic link: the link replaced is put back", async () => {
    git(project, "config", "--add", "include.path", "../shared.gitconfig");
    await mkdir(join(project, "conf"));
    await writeFile(join(project, "conf", "shared.gitconfig"), "[alias]\n\tst = status\n");
    await symlink("conf/shared.gitconfig", join(project, "shared.gitconfig"));
    const evil = `[core]\\n\\tfsmonitor = \\"touch ${marker}; false\\"\\n`;
    const result = await run(`rm shared.gitconfig && printf '${evil}' > shared.gitconfig`);
    expect(result.sandboxLimit).toContain(
      `it put back the symbolic link ${join(project, "shared.gitconfig")} (to ` +
        "conf/shared.gitconfig), which the command replaced",
    );
    expect(await readlink(join(project, "shared.gitconfig"))).toBe("conf/shared.gitconfig");
    git(project, "status", "--short");
    expect(existsSync(marker)).toBe(false);
  });

  it("a hooks folder whose parent folder is moved away: the one made in its place is removed", async () => {
    git(project, "config", "core.hooksPath", "tools/git-hooks");
    await mkdir(join(project, "tools", "git-hooks"), { recursive: true });
    const result = await run(
      `mv tools moved && mkdir -p tools/git-hooks && ${plant("tools/git-hooks/pre-commit")} && echo planted`,
    );
    expect(result.output).toBe("planted\n");
    expect(result.sandboxLimit).toBe(removed(join(project, "tools", "git-hooks")));
    expect(existsSync(join(project, "tools", "git-hooks"))).toBe(false);
    expect(existsSync(join(project, "moved", "git-hooks"))).toBe(true);
    git(project, "commit", "-q", "--allow-empty", "-m", "next");
    expect(existsSync(marker)).toBe(false);
  });

  it("a hooks folder that does not exist yet: the one the command makes is removed", async () => {
    git(project, "config", "core.hooksPath", ".githooks");
    const result = await run(`mkdir .githooks && ${plant(".githooks/pre-commit")} && echo planted`);
    expect(result.output).toBe("planted\n");
    expect(result.sandboxLimit).toBe(removed(join(project, ".githooks")));
    expect(existsSync(join(project, ".githooks"))).toBe(false);
    git(project, "commit", "-q", "--allow-empty", "-m", "next");
    expect(existsSync(marker)).toBe(false);
  });
});
