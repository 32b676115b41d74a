import { execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { oneCommandThroughCli } from "../support/one-command.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";
import { makeHome } from "../support/test-home.js";

/**
 * Trial of round 3 session 36 (P1-1, P1-2): a sandboxed command that exited 0 although the
 * sandbox refused its writes (`~/.bashrc`, a file under the private `/tmp`) showed `✓` on `-p`'s
 * line and nothing else; only the model read the note, and that note named the first refused
 * place only. Now the note names each place (the first three, the rest counted) and `-p` shows
 * it under the `✓` line (the call stays completed: exit 0 is success).
 */

let server: FakeModelServer;
let home: string;
/** The command's HOME: outside /tmp, whose folders the sandbox does not show. */
let userHome: string;
let workspace: string;
const sandboxWorks = await requireSandbox();

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await makeHome("turnloop-refused-writes-home-");
  userHome = await mkdtemp(join("/var/tmp", "turnloop-refused-writes-user-"));
  await writeFile(join(userHome, ".bashrc"), "# the user's own\n");
  workspace = await mkdtemp(join(tmpdir(), "turnloop-refused-writes-workspace-"));
  execFileSync("git", ["init", "-q"], { cwd: workspace });
});
afterAll(async () => {
  await server.close();
  for (const folder of [home, userHome, workspace]) {
    await removeTree(folder);
  }
});

/** Has the model run `command` once in the workspace sandbox through `turnloop -p`. */
function runSandboxed(command: string) {
  return oneCommandThroughCli(server, command, {
    cwd: workspace,
    home,
    flags: ["--sandbox", "workspace-write", "--allow-all-tools"],
    env: { HOME: userHome },
  });
}

/** stderr with the durations and the session's totals line left out. */
function shown(stderr: string): string {
  return stderr
    .replace(/ \([\d.]+ (?:ms|s|min)\)/g, " (N ms)")
    .split("\n")
    .filter((line) => !/ · session /.test(line))
    .join("\n");
}

const ADVICE =
  "run a command that makes only that change and fails when it cannot (for git's config, " +
  "`git config <key> <value>`; `git branch --set-upstream-to` exits 0 too): when the sandbox " +
  "stops it, the user is asked whether to run it outside the sandbox.";

describe.runIf(sandboxWorks)("a sandboxed command that exited 0 with writes refused", () => {
  test("-p shows the note naming each place under the ✓ line; the model reads the same", async () => {
    const command =
      "echo evil >> ~/.bashrc; echo x > ~/newfile; echo h > .git/hooks/pre-commit; " +
      "echo c >> .git/config; echo p > ~/.profile; echo rc=$?";
    const result = await runSandboxed(command);
    const bashrc =
      "the sandbox keeps .bashrc read-only whatever the settings: your shell or git reads it " +
      "and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a " +
      "program early in PATH) (Read-only file system)";
    const newFile =
      "the sandbox lets it write only inside the workspace (bash: line 1: " +
      `${userHome}/newfile: Read-only file system)`;
    const hooks =
      "the sandbox keeps .git/hooks read-only whatever the settings: git runs the hooks there " +
      "later, outside the sandbox (Read-only file system)";
    const note =
      "Note: the command exited 0, but writes it tried were refused in 5 places, so those " +
      `changes are missing: ${bashrc}; ${newFile}; ${hooks}; and 2 more (see its output). ` +
      `To make each, ${ADVICE}`;
    expect(result.toolResult).toBe(
      [
        `bash: line 1: ${userHome}/.bashrc: Read-only file system`,
        `bash: line 1: ${userHome}/newfile: Read-only file system`,
        "bash: line 1: .git/hooks/pre-commit: Read-only file system",
        "bash: line 1: .git/config: Read-only file system",
        `bash: line 1: ${userHome}/.profile: Read-only file system`,
        "rc=1",
        "<exited with exit code 0>",
        note,
      ].join("\n"),
    );
    expect({ ...result, stderr: shown(result.stderr), toolResult: undefined }).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr: [
        "✓ bash echo evil >> ~/.bashrc; echo x > ~/newfile; echo h > .git/h… (N ms)",
        `    ${note}`,
        "",
      ].join("\n"),
      toolResult: undefined,
    });
  });

  test("one refused place is named alone, and a write into the private /tmp is shown too", async () => {
    const one = await runSandboxed("echo h > .git/hooks/post-checkout; echo done");
    const hooks =
      "the sandbox keeps .git/hooks read-only whatever the settings: git runs the hooks there " +
      "later, outside the sandbox (Read-only file system)";
    expect(shown(one.stderr)).toBe(
      [
        "✓ bash echo h > .git/hooks/post-checkout; echo done (N ms)",
        "    Note: the command exited 0, but a write it tried was refused, so that change is " +
          `missing: ${hooks}. To make it, ${ADVICE}`,
        "",
      ].join("\n"),
    );
    const temporary = await runSandboxed("echo pwned > /tmp/turnloop-refused.txt; echo ok");
    expect(shown(temporary.stderr)).toBe(
      [
        "✓ bash echo pwned > /tmp/turnloop-refused.txt; echo ok (N ms)",
        "    Note: in the sandbox each command has its own /tmp, empty when it starts (this " +
          "machine's files and folders under /tmp are not in it) and removed when it ends: " +
          "anything this command wrote there is gone, and no later command can read it. Keep " +
          "files a later command needs in the workspace.",
        "",
      ].join("\n"),
    );
  });
});
