import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { commandsThroughCli, oneCommandThroughCli } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";
import { makeHome } from "../support/test-home.js";

/**
 * A fresh user's trial: under `--sandbox workspace-write`, `echo hi > .git/hooks/pre-commit` was
 * told "the sandbox lets it write only inside the workspace … rerun with --add-dir <folder>",
 * though the file is inside the workspace and no --add-dir helps; `git config user.name foo`
 * failed with "Device or resource busy" and no sandbox note at all. Both are places the sandbox
 * keeps read-only under every policy (src/tools/sandbox/protected-place-stops.ts `protectedPlaceStop`): the reason says
 * which and why, and the way out is to run the command without the sandbox.
 */

let server: FakeModelServer;
let home: string;
let workspace: string;
const sandboxWorks = await requireSandbox();

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await makeHome("turnloop-protected-home-");
  workspace = await mkdtemp(join(tmpdir(), "turnloop-protected-workspace-"));
  execFileSync("git", ["init", "-q", workspace]);
});
afterAll(async () => {
  await server.close();
  for (const folder of [home, workspace]) {
    await rm(folder, { recursive: true, force: true });
  }
});

/** Has the model run `command` once through `turnloop -p` with `flags` (test/support/one-command.ts). */
function runThroughCli(command: string, flags: readonly string[]) {
  return oneCommandThroughCli(server, command, {
    cwd: workspace,
    home,
    flags,
    prompt: "change the repository",
  });
}

const WAY_OUT =
  "It was not run outside the sandbox: no terminal to ask on; rerun with --sandbox " +
  "danger-full-access --allow-tool 'bash(COMMAND)' (commands run without the sandbox, the only " +
  "way to write that place), or run -p on a terminal to be asked.";

describe.runIf(sandboxWorks)("a write to a place the sandbox keeps read-only", () => {
  test("a hook: the reason names .git/hooks and why, not --add-dir; -p shows it whole", async () => {
    const command = "echo hi > .git/hooks/pre-commit";
    const result = await runThroughCli(command, ["--sandbox", "workspace-write", "--yolo"]);
    const why =
      "The sandbox stopped this command: the sandbox keeps .git/hooks read-only whatever the " +
      "settings: git runs the hooks there later, outside the sandbox (Read-only file system). " +
      WAY_OUT.replace("COMMAND", "echo hi > .git/hooks/pre-commit");
    expect({
      ...result,
      stderr: result.stderr
        .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
        .replace(/· [\d.]+ s · session \S+/, "· session ID"),
    }).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr:
        `✗ bash ${command} failed (exit code 1) (N ms)\n` +
        "    bash: line 1: .git/hooks/pre-commit: Read-only file system\n" +
        `    ${why}\n` +
        "2 turns · 1 call refused · 20 in / 10 out tokens · session ID\n",
      toolResult: `bash: line 1: .git/hooks/pre-commit: Read-only file system\n<exited with exit code 1>\n${why}`,
    });
  });

  // Found with the check of .turnloop's chain: only hooks and config were mount points, so the
  // .git folder holding them could be moved away and a new one made with a writable hooks folder.
  test("mv .git away and make a new one: refused, and the reason names .git", async () => {
    const command =
      "mv .git .git.old && mkdir -p .git/hooks && echo 'echo hi' > .git/hooks/pre-commit";
    const result = await runThroughCli(command, ["--sandbox", "workspace-write", "--yolo"]);
    const why =
      "The sandbox stopped this command: the sandbox keeps .git read-only whatever the " +
      "settings: it holds the hooks and config git runs and reads later, outside the sandbox, " +
      "so it cannot be moved or removed (Device or resource busy). " +
      WAY_OUT.replace("COMMAND", command.replaceAll("'", "'\\''"));
    expect(result.toolResult).toBe(
      "mv: cannot move '.git' to '.git.old': Device or resource busy\n" +
        `<exited with exit code 1>\n${why}`,
    );
    expect(existsSync(join(workspace, ".git.old"))).toBe(false);
    expect(existsSync(join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  test("the hooks folder turnloop's $XDG_CONFIG_HOME/git/config names is read-only", async () => {
    const configHome = join(home, "xdg");
    await mkdir(join(configHome, "git"), { recursive: true });
    await writeFile(join(configHome, "git", "config"), "[core]\n\thooksPath = .githooks\n");
    await mkdir(join(workspace, ".githooks"));
    const command = "echo 'echo hi' > .githooks/pre-commit";
    const result = await oneCommandThroughCli(server, command, {
      cwd: workspace,
      home,
      flags: ["--sandbox", "workspace-write", "--yolo"],
      env: { XDG_CONFIG_HOME: configHome },
    });
    await rm(join(workspace, ".githooks"), { recursive: true });
    expect(result.toolResult).toContain(
      "bash: line 1: .githooks/pre-commit: Read-only file system\n<exited with exit code 1>\n" +
        `The sandbox stopped this command: the sandbox keeps ${join(workspace, ".githooks")} ` +
        "read-only whatever the settings: a repository's core.hooksPath names it",
    );
  });

  test("git config (EBUSY on the bound .git/config) is a sandbox stop too, under either policy", async () => {
    for (const policy of ["workspace-write", "read-only"]) {
      const result = await runThroughCli("git config user.name foo", [
        "--sandbox",
        policy,
        "--yolo",
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.toolResult).toBe(
        `error: could not ${policy === "read-only" ? "lock" : "write"} config file .git/config: ` +
          `${policy === "read-only" ? "Read-only file system" : "Device or resource busy"}\n` +
          `<exited with exit code ${policy === "read-only" ? 255 : 4}>\n` +
          "The sandbox stopped this command: the sandbox keeps .git/config read-only whatever " +
          "the settings: it configures git runs outside the sandbox later (core.hooksPath, " +
          "aliases and core.fsmonitor run programs) " +
          `(${policy === "read-only" ? "Read-only file system" : "Device or resource busy"}). ` +
          WAY_OUT.replace("COMMAND", "git config user.name foo"),
      );
    }
    expect(await readFile(join(workspace, ".git", "config"), "utf8")).not.toContain("foo");
  });

  // A fresh user's trial (round 3, session 19, #15): a write to TURNLOOP_HOME inside an --add-dir
  // folder was told "rerun with --add-dir <folder>", which cannot help: the hidden places
  // (turnloop's own folder, the credentials, sandbox.hidden) are named as the place they are.
  test("a hidden place inside a writable folder is named, with why, not --add-dir", async () => {
    const hiddenHome = await mkdtemp(join(tmpdir(), "turnloop-protected-hidden-"));
    await writeFile(
      join(hiddenHome, "config.json"),
      JSON.stringify({ sandbox: { hidden: [join(workspace, "secrets")] } }),
    );
    await mkdir(join(workspace, "secrets"));
    const cases = [
      [
        `touch ${hiddenHome}/notes.txt`,
        hiddenHome,
        "turnloop hides its own folder (TURNLOOP_HOME: the session logs) from sandboxed commands",
      ],
      [
        `echo x > secrets/token`,
        join(workspace, "secrets"),
        "it is one of the places the sandbox hides from commands (credentials and sockets; sandbox.hidden in a config file)",
      ],
    ] as const;
    // Both commands in one -p run (each call's result is judged on its own).
    const results = await commandsThroughCli(
      server,
      cases.map(([command]) => command),
      {
        cwd: workspace,
        home: hiddenHome,
        flags: ["--sandbox", "workspace-write", "--yolo", "--add-dir", hiddenHome],
      },
    );
    const reasons = results.map((result) => result.split("\n").at(-1) ?? "");
    await rm(join(workspace, "secrets"), { recursive: true });
    await rm(hiddenHome, { recursive: true, force: true });
    expect(reasons).toEqual(
      cases.map(
        ([command, place, why]) =>
          `The sandbox stopped this command: the sandbox keeps ${place} read-only whatever the settings: ${why} (Read-only file system). ${WAY_OUT.replace("COMMAND", command.replaceAll("'", "'\\''"))}`,
      ),
    );
  });

  // Session 27's trial: `git checkout -b x origin/main` printed "could not write config file"
  // and exited 0, so the branch's tracking was lost while git said it was set up. The result now
  // ends with a note naming the protection and the way to make the change (a command of its own,
  // which the sandbox stops and the user is asked about); .git/config stays read-only.
  test("a command that exits 0 after git could not write .git/config ends with a note", async () => {
    const git = (...args: string[]) => execFileSync("git", ["-C", workspace, ...args]);
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one");
    git("remote", "add", "origin", join(workspace, "no-remote"));
    git("update-ref", "refs/remotes/origin/main", "HEAD");
    const result = await runThroughCli("git checkout -b topic origin/main", [
      "--sandbox",
      "workspace-write",
      "--yolo",
    ]);
    git("checkout", "-q", "--detach");
    git("branch", "-q", "-D", "topic");
    expect(result.toolResult).toBe(
      // git says twice it could not, then that it did.
      "error: could not write config file .git/config: Device or resource busy\n".repeat(2) +
        "Switched to a new branch 'topic'\nbranch 'topic' set up to track 'origin/main'.\n" +
        "<exited with exit code 0>\n" +
        "Note: the command exited 0, but a write it tried was refused, so that change is missing: " +
        "the sandbox keeps .git/config read-only whatever the settings: it configures git runs " +
        "outside the sandbox later (core.hooksPath, aliases and core.fsmonitor run programs) " +
        "(Device or resource busy). To make it, run a command that makes only that change and " +
        "fails when it cannot (for git's config, `git config <key> <value>`; `git branch " +
        "--set-upstream-to` exits 0 too): when the sandbox stops it, the user is asked whether " +
        "to run it outside the sandbox.",
    );
    expect(await readFile(join(workspace, ".git", "config"), "utf8")).not.toContain("topic");
  });

  test("the advised flags run it: --sandbox danger-full-access --allow-tool 'bash(…)'", async () => {
    const command = "git config user.name foo";
    const result = await runThroughCli(command, [
      "--sandbox",
      "danger-full-access",
      "--allow-tool",
      `bash(${command})`,
    ]);
    expect(result.toolResult).toBe("<exited with exit code 0>");
    expect(await readFile(join(workspace, ".git", "config"), "utf8")).toContain("name = foo");
  });
  test("the workspace is the home folder: said once before anything runs; ~/.bashrc is kept", async () => {
    const userHome = await mkdtemp(join(tmpdir(), "turnloop-protected-user-home-"));
    await writeFile(join(userHome, ".bashrc"), "# mine\n");
    const command = "echo evil >> ~/.bashrc";
    const result = await oneCommandThroughCli(server, command, {
      cwd: userHome,
      home,
      flags: ["--sandbox", "workspace-write", "--yolo"],
      env: { HOME: userHome },
    });
    await rm(userHome, { recursive: true, force: true });
    const why =
      "The sandbox stopped this command: the sandbox keeps .bashrc read-only whatever the " +
      "settings: your shell or git reads it and runs what it says later, outside the sandbox " +
      "(shell start-up, core.fsmonitor, a program early in PATH) (Read-only file system). " +
      WAY_OUT.replace("COMMAND", command);
    const lines = result.stderr.split("\n");
    expect(lines.slice(0, 4)).toEqual([
      `turnloop: warning: your home folder ${userHome} is a writable folder of the sandbox: ` +
        "commands may change any file in it but your shell's start-up files, git's config, " +
        "~/.local/bin and the hooks and config of the repositories in it, which it " +
        `keeps read-only (README, "Sandbox"); start turnloop in a project's folder to confine them to it`,
      expect.stringMatching(/^✗ bash echo evil >> ~\/\.bashrc failed \(exit code 1\)/),
      `    bash: line 1: ${userHome}/.bashrc: Read-only file system`,
      `    ${why}`,
    ]);
    expect(lines.filter((line) => line.includes("warning"))).toHaveLength(1);
  });
});
