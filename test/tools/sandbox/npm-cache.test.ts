/**
 * npm under `workspace-write`: its cache in the user's home (`~/.npm`) is read-only there, so
 * `npm install` of a tarball failed with `ENOENT … mkdir '~/.npm/_cacache'`. Each command gets a
 * cache of its own in its private `/tmp` (`npm_config_cache`, and `XDG_CACHE_HOME` for the tools
 * that follow it). A cache named read-only on purpose still fails as a sandbox stop: npm prints
 * only "Log files were not written due to an error writing to the directory" (the EROFS stays in
 * its own log), and the faces offer the rerun outside and name `--add-dir` (a fresh user's trial,
 * bench/notes/trial.md item 5). A real npm in a real bubblewrap sandbox, no network.
 */

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
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
    const dependency = join(fixture.workspace, "local-dep");
    await mkdir(dependency);
    await writeFile(
      join(dependency, "package.json"),
      JSON.stringify({ name: "local-dep", version: "1.0.0" }),
    );
    await writeFile(join(dependency, "index.js"), "module.exports = 1;\n");
    execFileSync(
      "npm",
      ["pack", "--pack-destination", fixture.workspace, "--cache", fixture.outside],
      {
        cwd: dependency,
        stdio: "ignore",
      },
    );
    await mkdir(join(fixture.home, ".npm", "_logs"), { recursive: true });
  });

  afterAll(async () => {
    await fixture?.remove();
  });

  const run = (command: string) =>
    new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
    }).run(command, {
      cwd: fixture.workspace,
      env: fixture.env,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.outside, "npm-output.txt"),
      secrets: [],
    });

  it("npm --version and npm install of a local folder and of a tarball work, with a private cache", async () => {
    const result = await run(
      "npm --version >/dev/null && npm install --no-audit --no-fund ./local-dep ./local-dep-1.0.0.tgz " +
        '>/dev/null && echo "$npm_config_cache $XDG_CACHE_HOME" && ls node_modules',
    );
    expect({ output: result.output, exitCode: result.exitCode }).toEqual({
      output: "/tmp/.npm /tmp/.cache\nlocal-dep\n",
      exitCode: 0,
    });
    expect(result.sandboxLimit).toBeUndefined();
    expect(await readdir(join(fixture.home, ".npm"))).toEqual(["_logs"]);
    expect(existsSync(join(fixture.home, ".npm", "_cacache"))).toBe(false);
  });

  it("a cache named in the read-only HOME, which npm reports only as log files not written, is a sandbox stop", async () => {
    const result = await run(`npm pack --dry-run --cache ${join(fixture.home, ".npm")}`);
    expect(result.output).toContain("Log files were not written");
    expect(result.exitCode).not.toBe(0);
    expect(result.sandboxLimit).toBe(
      "the sandbox lets it write only inside the workspace (Log files were not written due to an error writing to the directory)",
    );
  });
});
