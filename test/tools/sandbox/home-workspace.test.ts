/**
 * The workspace is the home folder (`cd ~ && turnloop --sandbox workspace-write`): a confined
 * command must not plant what a shell or git runs later, outside the sandbox (the session-27
 * trial's finding: it appended to `~/.bashrc`, set `core.fsmonitor` and `core.pager` in
 * `~/.gitconfig` and wrote `~/.local/bin/git`). Real bubblewrap, real git, through the runner.
 */

import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** What the sandbox says when it removed `made`, start-up files of the home (policy.ts). */
function removedStartup(places: string, made: readonly string[]): string {
  const pronoun = made.length === 1 ? "it" : "them";
  return (
    `the sandbox keeps ${places} read-only whatever the settings: your shell or git reads ` +
    `${pronoun} and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a ` +
    `program early in PATH); it removed ${made.join(", ")}, which the command made`
  );
}

describe.skipIf(!sandboxReady)("workspace-write in the home folder", () => {
  let fixture: SandboxFixture;
  let marker: string;

  beforeEach(async () => {
    fixture = await createSandboxFixture();
    marker = join(fixture.outside, "planted-ran");
  });

  afterEach(async () => {
    await fixture?.remove();
  });

  const run = (command: string) =>
    new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
    }).run(command, {
      cwd: fixture.home,
      env: fixture.env,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.outside, "output.txt"),
      secrets: [],
    });

  it("~/.bashrc and an existing ~/.gitconfig are read-only; the rest of the home is writable", async () => {
    await writeFile(join(fixture.home, ".gitconfig"), "[user]\n\tname = me\n");
    const result = await run(
      `echo 'touch ${marker}' >> ~/.bashrc; git config --global core.pager 'touch ${marker}'; ` +
        "echo notes > ~/notes.txt && echo written",
    );
    expect(result.output).toBe(
      `bash: line 1: ${join(fixture.home, ".bashrc")}: Read-only file system\n` +
        `error: could not write config file ${join(fixture.home, ".gitconfig")}: Device or resource busy\n` +
        "written\n",
    );
    expect(await readFile(join(fixture.home, ".bashrc"), "utf8")).toBe("# the user's bashrc\n");
    expect(await readFile(join(fixture.home, ".gitconfig"), "utf8")).toBe("[user]\n\tname = me\n");
    expect(await readFile(join(fixture.home, "notes.txt"), "utf8")).toBe("notes\n");
    const refused = await run("echo 'echo evil' >> .bashrc");
    expect(refused.sandboxLimit).toBe(
      "the sandbox keeps .bashrc read-only whatever the settings: your shell or git reads it and " +
        "runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a program " +
        "early in PATH) (Read-only file system)",
    );
  });

  it("a ~/.gitconfig, ~/.config/git and ~/.local/bin made where there were none are removed", async () => {
    const result = await run(
      `git config --global core.fsmonitor 'touch ${marker}' && ` +
        `mkdir -p ~/.config/git && printf '[core]\\n\\tpager = touch ${marker}\\n' > ~/.config/git/config && ` +
        `mkdir -p ~/.local/bin && printf '#!/bin/sh\\ntouch ${marker}\\n' > ~/.local/bin/git && echo planted`,
    );
    expect(result.output).toBe("planted\n");
    const made = [".gitconfig", ".config/git", ".local/bin"].map((path) =>
      join(fixture.home, path),
    );
    expect(result.sandboxLimit).toBe(
      removedStartup(".gitconfig and .config/git and .local/bin", made),
    );
    for (const path of made) {
      expect(existsSync(path)).toBe(false);
    }
    expect(existsSync(join(fixture.home, ".local"))).toBe(true);
  });

  it("~/.config/git made anew after moving ~/.config away is removed, the moved one kept", async () => {
    await mkdir(join(fixture.home, ".config", "git"), { recursive: true });
    await writeFile(join(fixture.home, ".config", "git", "config"), "[user]\n\tname = me\n");
    const result = await run(
      "mv ~/.config ~/.config.old && mkdir -p ~/.config/git && " +
        `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' > ~/.config/git/config && echo planted`,
    );
    expect(result.output).toBe("planted\n");
    expect(result.sandboxLimit).toBe(
      removedStartup(".config/git", [join(fixture.home, ".config", "git")]),
    );
    expect(existsSync(join(fixture.home, ".config", "git"))).toBe(false);
    expect(await readFile(join(fixture.home, ".config.old", "git", "config"), "utf8")).toBe(
      "[user]\n\tname = me\n",
    );
  });
});
