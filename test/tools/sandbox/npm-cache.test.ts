/**
 * npm under `workspace-write` with its cache in the read-only HOME (`~/.npm`): npm prints only
 * "Log files were not written due to an error writing to the directory" (the EROFS stays in its
 * own log), and the failed command is known as a sandbox stop all the same, so the faces offer
 * the rerun outside and name `--add-dir` (a fresh user's trial, bench/notes/trial.md item 5). A
 * real npm in a real bubblewrap sandbox.
 */

import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();
const npmReady = (() => {
  try {
    execFileSync("npm", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!sandboxReady || !npmReady)("npm in the workspace-write sandbox", () => {
  let fixture: SandboxFixture;

  beforeAll(async () => {
    fixture = await createSandboxFixture();
    await writeFile(
      join(fixture.workspace, "package.json"),
      JSON.stringify({ name: "example", version: "1.0.0" }),
    );
    await mkdir(join(fixture.home, ".npm", "_logs"), { recursive: true });
  });

  afterAll(async () => {
    await fixture?.remove();
  });

  it("a write to ~/.npm npm reports only as log files not written is a sandbox stop", async () => {
    const runner = new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
    });
    const result = await runner.run("npm pack --dry-run", {
      cwd: fixture.workspace,
      env: { ...fixture.env, HOME: fixture.home },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.outside, "npm-output.txt"),
      secrets: [],
    });
    expect(result.output).toContain("Log files were not written");
    expect(result.exitCode).not.toBe(0);
    expect(result.sandboxLimit).toBe(
      "the sandbox lets it write only inside the workspace (Log files were not written due to an error writing to the directory)",
    );
  });
});
