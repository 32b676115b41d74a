import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { type CliFixtures, test } from "../support/fixtures.js";

// Round 3, session 20 (the last trial's leftovers, #3): the project's `.turnloop/config.json` was
// read from the cwd only, so `cd src && turnloop` dropped the repository's deny rules. The project
// is now the nearest folder up holding `.git` (src/session/config-paths.ts `projectFolder`): its
// files apply in its subfolders, and its trust is recorded under its path.

test.override({ git: true });

async function projectConfig(folder: string, settings: object): Promise<string> {
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  const path = join(folder, ".turnloop", "config.json");
  await writeFile(path, JSON.stringify(settings));
  return path;
}

/** `repository/src/lib`, made. */
async function subfolder(repository: string): Promise<string> {
  const folder = join(repository, "src", "lib");
  await mkdir(folder, { recursive: true });
  return folder;
}

/** `turnloop -p` in `cwd` whose model asks for `bash touch made`, then says "Done.". */
async function touchMade(
  { cli, model }: Pick<CliFixtures, "cli" | "model">,
  cwd: string,
  flags: readonly string[] = [],
) {
  model.enqueue(
    {
      toolCalls: [
        { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "touch made" }) },
      ],
    },
    { text: "Done." },
  );
  const result = await cli(["-p", "make it", ...flags], { cwd });
  const tool = chatMessages(model, -1).find((message) => message.role === "tool");
  return { code: result.code, stderr: result.stderr, toolResult: String(tool?.content) };
}

describe("a repository's .turnloop/config.json from a subfolder", () => {
  test("its deny rule applies from a subfolder (-p)", async ({ cli, model, repository }) => {
    await projectConfig(repository, { permissions: { deny: ["bash(touch *)"] } });
    const folder = await subfolder(repository);
    const result = await touchMade({ cli, model }, folder, ["--allow-all-tools"]);
    expect(result).toEqual({
      code: 0,
      stderr: expect.any(String),
      toolResult: `Permission denied for 'bash': denied by the rule "bash(touch *)" in ${join(repository, ".turnloop", "config.json")}`,
    });
    expect(result.stderr).not.toContain("warning");
    expect(existsSync(join(folder, "made"))).toBe(false);
  });

  test("an untrusted root's held keys stay held from a subfolder, named with the root's file", async ({
    cli,
    model,
    repository,
  }) => {
    const path = await projectConfig(repository, { permissions: { allow: ["bash(touch *)"] } });
    const folder = await subfolder(repository);
    const result = await touchMade({ cli, model }, folder);
    expect(result.stderr).toContain(
      `turnloop: warning: ${path}: not applying permissions.allow: this project is not trusted`,
    );
    expect(result.toolResult).toContain("Permission denied for 'bash': no terminal to ask on");
    expect(existsSync(join(folder, "made"))).toBe(false);
  });

  test("trust given in a subfolder is the root's: recorded under its path, its allow rules apply", async ({
    cli,
    model,
    repository,
    home,
  }) => {
    await projectConfig(repository, { permissions: { allow: ["bash(touch *)"] } });
    const folder = await subfolder(repository);
    const trusted = await cli(["mcp", "trust"], { cwd: folder });
    expect({ code: trusted.code, stdout: trusted.stdout }).toEqual({
      code: 0,
      stdout:
        `${join(repository, ".turnloop", "config.json")} loosens permissions, sends data elsewhere or changes what a run may spend:\n` +
        "  permissions.allow: bash(touch *) (run without asking)\n" +
        `Trusted ${repository}: its .mcp.json servers will run and its .turnloop/config.json applies whole.\n`,
    });
    const record = JSON.parse(await readFile(join(home, "trusted-projects.json"), "utf8")) as {
      projects: Record<string, unknown>;
    };
    expect(Object.keys(record.projects)).toEqual([repository]);
    const result = await touchMade({ cli, model }, join(repository, "src"));
    expect(result).toEqual({
      code: 0,
      stderr: expect.any(String),
      toolResult: "<exited with exit code 0>",
    });
    expect(result.stderr).not.toContain("warning");
    expect(existsSync(join(repository, "src", "made"))).toBe(true);
  });

  test("a project file in a folder between is not read, and said so; the root's applies", async ({
    cli,
    model,
    repository,
  }) => {
    await projectConfig(repository, { permissions: { deny: ["bash(touch *)"] } });
    const between = await projectConfig(join(repository, "src"), { maxTurns: 1 });
    const folder = await subfolder(repository);
    const result = await touchMade({ cli, model }, folder, ["--allow-all-tools"]);
    expect(result.stderr.split("\n")[0]).toBe(
      `turnloop: warning: ${between} is not read: the project is ${repository} (it holds .git), whose .turnloop/config.json applies in its subfolders`,
    );
    expect(result.toolResult).toBe(
      `Permission denied for 'bash': denied by the rule "bash(touch *)" in ${join(repository, ".turnloop", "config.json")}`,
    );
    // maxTurns 1 of the unread file would have stopped before the second request.
    expect(model.requests).toHaveLength(2);
  });

  test("a git worktree's .git file marks its root too", async ({ cli, model, home }) => {
    const root = join(home, "worktree");
    await mkdir(root);
    await writeFile(join(root, ".git"), "gitdir: /nowhere/.git/worktrees/w\n");
    await projectConfig(root, { permissions: { deny: ["bash(touch *)"] } });
    const folder = await subfolder(root);
    const result = await touchMade({ cli, model }, folder, ["--allow-all-tools"]);
    expect(result.toolResult).toBe(
      `Permission denied for 'bash': denied by the rule "bash(touch *)" in ~/worktree/.turnloop/config.json`,
    );
  });

  test.for(["as it is", "through a link", "with a trailing slash"] as const)(
    "a home folder kept in git, HOME given %s, is not the project of the folders in it: its config is the user's",
    async (spelling, { cli, model, home }) => {
      // A dotfiles repository: `$HOME/.git`, and the user's own `~/.turnloop/config.json` (the
      // default TURNLOOP_HOME), which needs no trust. Taken as the project's, its allow rule was
      // held; the cwd is always the real path, HOME may be a link (`/home` → `/var/home`).
      execFileSync("git", ["init", "-q"], { cwd: home });
      await projectConfig(home, { permissions: { allow: ["bash(touch *)"] } });
      const notes = join(home, "notes");
      await mkdir(notes);
      const link = `${home}-link`;
      await symlink(home, link);
      const spelt = {
        "as it is": home,
        "through a link": link,
        "with a trailing slash": `${home}/`,
      };
      model.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: "touch made" }) },
          ],
        },
        { text: "Done." },
      );
      try {
        const result = await cli(["-p", "make it"], {
          cwd: notes,
          env: { HOME: spelt[spelling], TURNLOOP_HOME: undefined },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toContain("warning");
        expect(existsSync(join(notes, "made"))).toBe(true);
      } finally {
        await rm(link);
      }
    },
  );
});
