/**
 * The count of processes a sandboxed command left running (src/tools/sandbox/left-running.ts):
 * its shell counts them after the command, through the `EXIT` trap of the file `BASH_ENV` names,
 * without changing what the command itself sees of its exit, output, options or `BASH_ENV`.
 * Real bubblewrap through the runner.
 */

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { CommandRequest } from "../../../src/tools/command-runner.js";
import { ProcessRunner } from "../../../src/tools/process-runner.js";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";

const sandboxReady = await requireSandbox();

/** The host's processes whose command line holds `text` (their pids), read from `/proc`. */
async function processesNamed(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir("/proc")) {
    if (/^\d+$/.test(entry)) {
      const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
      if (commandLine.includes(text)) {
        found.push(entry);
      }
    }
  }
  return found;
}

// Most cases wait out the trap's grace (1 s of the clock: left-running.ts GRACE_MICROSECONDS) for
// a process that never ends: they run at once, each with its own files and output file, so the
// file costs about one grace, not one a case.
describe.skipIf(!sandboxReady)(
  "the processes a sandboxed command left running",
  { concurrent: true },
  () => {
    let base: string;
    let workspace: string;
    let runner: SandboxedRunner;
    /** How many requests were made: each saves its output to a file of its own. */
    let saved = 0;
    const nextSave = () => {
      saved += 1;
      return saved;
    };

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
        savePath: join(base, `output-${nextSave()}.txt`),
        secrets: [],
      };
    }

    it("counts a subshell's, a nohup'ed and a self-daemonising process, and keeps the exit code", async ({
      expect,
    }) => {
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

    it("one holding the output is counted too, never told to use nohup (the runner's note outside)", async ({
      expect,
    }) => {
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
      expect(outside.backgroundStopped).toEqual({
        processes: [{ pid: expect.any(Number), command: "sleep 600" }],
      });
    });

    it("nothing left running, nothing said: background processes that ended before it", async ({
      expect,
    }) => {
      expect(await runner.run("sleep 0 & wait; echo done", request())).toEqual({
        exitCode: 0,
        signal: null,
        output: "done\n",
        truncated: false,
      });
    });

    // A process ending on its own as the command ends is not one it left running (a flaky note
    // once followed `git ls-remote …; echo listed`, its helper still exiting). Gated, not timed:
    // each process here ends only once the shell lets go of its end of a pipe, which the old count
    // came before (2 then, the `sleep` alone now).
    it("a process that ends once the shell lets go of its pipes (a >(tee log)) is not counted", async ({
      expect,
    }) => {
      const command = [
        "exec > >(tee log.txt) 2>&1",
        "exec 3> >(cat > copy.txt)",
        "echo data >&3",
        // A server that holds none of those pipes: left running.
        "(sleep 600 > /dev/null 2>&1 3>&- &)",
        "echo hi",
      ].join("; ");
      expect(await runner.run(command, request())).toEqual({
        exitCode: 0,
        signal: null,
        output: "hi\n",
        truncated: false,
        sandboxStopped: 1,
      });
      expect(await readFile(join(workspace, "log.txt"), "utf8")).toBe("hi\n");
      expect(await readFile(join(workspace, "copy.txt"), "utf8")).toBe("data\n");
    });

    it("counts under the options a command may set (errexit, nounset, noglob, failglob)", async ({
      expect,
    }) => {
      const command = "set -euf; shopt -s failglob; (sleep 600 &); false";
      expect(await runner.run(command, request())).toEqual({
        exitCode: 1,
        signal: null,
        output: "",
        truncated: false,
        sandboxStopped: 1,
      });
    });

    it("the command sees the BASH_ENV of its environment, read as bash reads it, and no trace of the sandbox's", async ({
      expect,
    }) => {
      const file = join(workspace, "bash-env.sh");
      await writeFile(file, "greeting=hello\n");
      const command = 'echo "$greeting $BASH_ENV"; bash -c \'echo "inner $greeting"\'';
      const withOwn = await runner.run(command, request({ BASH_ENV: file }));
      expect(withOwn.output).toBe(`hello ${file}\ninner hello\n`);
      const without = await runner.run('echo "[$BASH_ENV]"; bash -c "echo inner"', request());
      expect(without.output).toBe("[]\ninner\n");
    });

    it("what a command left running is gone, on the host too, once its result is back", async ({
      expect,
    }) => {
      // A name no other process has; the process holds none of the runner's pipes.
      const marker = `turnloop-left-${process.pid}-${Date.now()}`;
      const command = `nohup bash -c 'exec -a ${marker} sleep 600' > /dev/null 2>&1 & echo started`;
      expect(await runner.run(command, request())).toEqual({
        exitCode: 0,
        signal: null,
        output: "started\n",
        truncated: false,
        sandboxStopped: 1,
      });
      expect(await processesNamed(marker)).toEqual([]);
    });

    it("a signal the command's shell gets from inside ends it, as bwrap's exit code 128 + n (the shell is the sandbox's pid 1)", async ({
      expect,
    }) => {
      const ended = { signal: null, output: "", truncated: false };
      const terminated = await runner.run("kill -TERM $$; echo after", request());
      expect(terminated).toEqual({ exitCode: 143, ...ended });
      const hungUp = await runner.run("(sleep 600 &); kill -HUP $$; echo after", request());
      expect(hungUp).toEqual({ exitCode: 129, ...ended, sandboxStopped: 1 });
      // Its own write to a pipe whose reader has ended (waited for): SIGPIPE, not a "write error".
      const closedPipe = "exec > >(:); wait $!; echo y; echo survived >&2";
      expect(await runner.run(closedPipe, request())).toEqual({ exitCode: 141, ...ended });
      // The kernel drops SIGKILL sent to a namespace's pid 1 from inside it (README, "Sandbox").
      const killed = await runner.run("kill -KILL $$; echo after", request());
      expect(killed).toEqual({ exitCode: 0, signal: null, output: "after\n", truncated: false });
    });

    it("a command that ends with exec, or sets its own EXIT trap, reports nothing and runs as before", async ({
      expect,
    }) => {
      const exec = await runner.run("(sleep 600 &); exec echo execed", request());
      expect(exec).toEqual({ exitCode: 0, signal: null, output: "execed\n", truncated: false });
      const trapped = await runner.run("trap 'echo own trap' EXIT; (sleep 600 &)", request());
      expect(trapped).toEqual({
        exitCode: 0,
        signal: null,
        output: "own trap\n",
        truncated: false,
      });
    });
  },
);
