/**
 * The count of processes a sandboxed command left running (src/tools/sandbox/left-running.ts):
 * its shell counts them after the command, through the `EXIT` trap of the file `BASH_ENV` names,
 * without changing what the command itself sees of its exit, output, options or `BASH_ENV`.
 * Real bubblewrap through the runner.
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandRequest } from "../../../src/tools/command-runner.js";
import { ProcessRunner } from "../../../src/tools/process-runner.js";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";

const sandboxReady = await requireSandbox();

describe.skipIf(!sandboxReady)("the processes a sandboxed command left running", () => {
  let base: string;
  let workspace: string;
  let runner: SandboxedRunner;

  beforeAll(async () => {
    base = await mkdtemp("/var/tmp/turnloop-left-running-");
    workspace = join(base, "workspace");
    await mkdir(join(base, "home"), { recursive: true });
    await mkdir(workspace);
    runner = new SandboxedRunner("workspace-write", {
      home: join(base, "home"),
      turnloopHome: join(base, "home", ".turnloop"),
    });
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  function request(env: Record<string, string> = {}): CommandRequest {
    return {
      cwd: workspace,
      env: { PATH: "/usr/bin:/bin", ...env },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(base, "output.txt"),
      secrets: [],
    };
  }

  it("counts a subshell's, a nohup'ed and a self-daemonising process, and keeps the exit code", async () => {
    const command = [
      "(sleep 600 &)",
      "nohup sleep 600 > /dev/null 2>&1 &",
      "setsid -f sleep 600",
      "echo started; exit 3",
    ].join("\n");
    expect(await runner.run(command, request())).toEqual({
      exitCode: 3,
      signal: null,
      output: "started\n",
      truncated: false,
      sandboxStopped: 3,
    });
  });

  it("one holding the output is counted too, never told to use nohup (the runner's note outside)", async () => {
    const result = await runner.run("sleep 600 & echo started", request());
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      output: "started\n",
      truncated: false,
      sandboxStopped: 1,
    });
    // The same command outside the sandbox: the runner's own stop, after its grace.
    const outside = await new ProcessRunner().run("sleep 600 & echo started", request());
    expect(outside.backgroundStopped).toBe(true);
  });

  it("nothing left running, nothing said: background processes that ended before it", async () => {
    expect(await runner.run("sleep 0 & wait; echo done", request())).toEqual({
      exitCode: 0,
      signal: null,
      output: "done\n",
      truncated: false,
    });
  });

  it("counts under the options a command may set (errexit, nounset, noglob, failglob)", async () => {
    const command = "set -euf; shopt -s failglob; (sleep 600 &); false";
    expect(await runner.run(command, request())).toEqual({
      exitCode: 1,
      signal: null,
      output: "",
      truncated: false,
      sandboxStopped: 1,
    });
  });

  it("the command sees the BASH_ENV of its environment, read as bash reads it, and no trace of the sandbox's", async () => {
    const file = join(workspace, "bash-env.sh");
    await writeFile(file, "greeting=hello\n");
    const command = 'echo "$greeting $BASH_ENV"; bash -c \'echo "inner $greeting"\'';
    const withOwn = await runner.run(command, request({ BASH_ENV: file }));
    expect(withOwn.output).toBe(`hello ${file}\ninner hello\n`);
    const without = await runner.run('echo "[$BASH_ENV]"; bash -c "echo inner"', request());
    expect(without.output).toBe("[]\ninner\n");
  });

  it("a command that ends with exec, or sets its own EXIT trap, reports nothing and runs as before", async () => {
    const exec = await runner.run("(sleep 600 &); exec echo execed", request());
    expect(exec).toEqual({ exitCode: 0, signal: null, output: "execed\n", truncated: false });
    const trapped = await runner.run("trap 'echo own trap' EXIT; (sleep 600 &)", request());
    expect(trapped).toEqual({ exitCode: 0, signal: null, output: "own trap\n", truncated: false });
  });
});
