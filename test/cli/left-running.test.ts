import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// Trial 40 F12: without the sandbox, processes a command left running (`nohup … &` with its output
// sent elsewhere, `(setsid … &)`) ran on after `-p` exited, and nothing named them: a leftover
// server was invisible until something else failed on its port. The call's note now names them
// by pid and command line, under its line and for the model.

/** Pids of the processes whose command line is `words`, read from /proc (the test's own). */
function pidsOf(words: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "") === words;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Stops the test's sleeps, by the pids found for their own command lines. */
function stopSleeps(commands: readonly string[]): void {
  for (const pid of commands.flatMap((command) => pidsOf(command.replace(" ", "\0")))) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/**
 * A shell function: whether a process runs whose command line is `$1` (a look at every
 * /proc/<pid>/cmdline; a process that ends during the look is no error: `2>/dev/null` comes
 * before the `<` that fails).
 */
const RUNNING = `running() { for f in /proc/[0-9]*/cmdline; do [ "$(tr '\\0' ' ' 2>/dev/null < "$f")" = "$1 " ] && return 0; done; return 1; }`;

describe.runIf(process.platform === "linux")(
  "-p without the sandbox: processes left running",
  () => {
    test("are named by pid and command line under the call's line, and for the model", async ({
      cli,
      model,
    }) => {
      // Unique lengths: the test finds, and stops, only its own sleeps.
      const sleeps = [`sleep 29.${process.pid}1`, `sleep 29.${process.pid}2`];
      // The command ends once both sleeps run as `sleep` (a gate, not a delay): before their
      // `exec` they would be named by their shell's command line.
      const command = `${RUNNING}; nohup ${sleeps[0]} > /dev/null 2>&1 & (setsid ${sleeps[1]} &); until running "${sleeps[0]}" && running "${sleeps[1]}"; do sleep 0.05; done; echo started`;
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "Started them." },
      );
      try {
        const result = await cli(["--allow-all-tools", "-p", "start them"]);
        expect(result.code, result.stderr).toBe(0);
        const note = result.stderr.split("\n").find((line) => line.includes("Left running"));
        const named = [...(note ?? "").matchAll(/(\d+) `([^`]+)`/g)].map(([, pid, words]) => ({
          pid: Number(pid),
          words,
        }));
        expect(named.map(({ words }) => words).sort(), result.stderr).toEqual(sleeps);
        // Each pid named is the sleep still running.
        for (const { pid, words } of named) {
          expect(pidsOf(words?.replace(" ", "\0") ?? "")).toContain(pid);
        }
        expect(note).toMatch(
          /^ {4}Left running after the command exited: .*They outlive this session/,
        );
        // The model is told the same, after the command's exit line.
        const toolMessage = JSON.stringify(model.requests[1]?.body);
        expect(toolMessage).toContain("Left running after the command exited: ");
      } finally {
        stopSleeps(sleeps);
      }
    });

    // Session 41: -p's closing summary names by pid those still running as it ends (they outlive
    // it); one the model stopped in a later call is not named there.
    test("the closing summary names those still running by pid, not one stopped since", async ({
      cli,
      model,
    }) => {
      const sleeps = [`sleep 28.${process.pid}1`, `sleep 28.${process.pid}2`];
      const start = `${RUNNING}; nohup ${sleeps[0]} > /dev/null 2>&1 & echo $! > first.pid; nohup ${sleeps[1]} > /dev/null 2>&1 & until running "${sleeps[0]}" && running "${sleeps[1]}"; do sleep 0.05; done`;
      // The second call stops the first sleep and waits until it is gone (a gate on /proc).
      const stop = `kill $(cat first.pid); while [ -e /proc/$(cat first.pid) ] && ! grep -q '^[^)]*) [ZX]' /proc/$(cat first.pid)/stat 2>/dev/null; do sleep 0.05; done`;
      model.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: start }) },
          ],
        },
        {
          toolCalls: [{ id: "call_2", name: "bash", arguments: JSON.stringify({ command: stop }) }],
        },
        { text: "One stopped." },
      );
      try {
        const result = await cli(["--allow-all-tools", "-p", "start two, stop one"]);
        expect(result.code, result.stderr).toBe(0);
        const [second] = pidsOf(sleeps[1]?.replace(" ", "\0") ?? "");
        expect(pidsOf(sleeps[0]?.replace(" ", "\0") ?? "")).toEqual([]);
        const summary = result.stderr.trimEnd().split("\n").at(-1) ?? "";
        expect(summary, result.stderr).toMatch(
          new RegExp(` · 1 process left running \\(pid ${second}\\) · session [0-9a-f-]{36}$`),
        );
      } finally {
        stopSleeps(sleeps);
      }
    });

    // Session 42: the JSON result (json's one object, stream-json's last line) names the same
    // processes as the text summary, by pid: `left_running_pids`, from the one place both read.
    test("json and stream-json: the result's left_running_pids names those still running", async ({
      cli,
      model,
    }) => {
      const sleeps = [`sleep 27.${process.pid}1`, `sleep 27.${process.pid}2`];
      const start = (sleep: string) =>
        `${RUNNING}; nohup ${sleep} > /dev/null 2>&1 & until running "${sleep}"; do sleep 0.05; done`;
      try {
        const results = [];
        for (const [index, format] of (["json", "stream-json"] as const).entries()) {
          const command = start(sleeps[index] ?? "");
          model.enqueue(
            { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
            { text: "Started." },
          );
          const result = await cli([
            "--allow-all-tools",
            "-p",
            "start it",
            "--output-format",
            format,
          ]);
          expect(result.code, result.stderr).toBe(0);
          const last = result.stdout.trimEnd().split("\n").at(-1) ?? "";
          results.push((JSON.parse(last) as { left_running_pids?: unknown }).left_running_pids);
        }
        const pids = sleeps.map((sleep) => pidsOf(sleep.replace(" ", "\0")));
        expect(pids.map((found) => found.length)).toEqual([1, 1]);
        expect(results).toEqual(pids);
      } finally {
        stopSleeps(sleeps);
      }
    });

    // Trial 47 F1: a command stopped at its timeout or by a cancel had its process group killed,
    // but a `(setsid … &)` outside the group ran on while the result said `[]` and the model read
    // only that the group was killed. Such a process is now named before the stop line, for the
    // model and in left_running_pids.
    test("a command stopped at its timeout or by SIGTERM names what ran on outside its group", async ({
      cli,
      model,
      repository,
    }) => {
      const sleeps = [`sleep 26.${process.pid}1`, `sleep 26.${process.pid}2`];
      // Ends only when stopped; `started` is written once the escaped sleep runs as `sleep`.
      const start = (sleep: string) =>
        `${RUNNING}; (setsid ${sleep} &); until running "${sleep}"; do sleep 0.05; done; touch started; sleep 60`;
      try {
        model.enqueue(
          {
            toolCalls: [
              {
                id: "call_1",
                name: "bash",
                arguments: JSON.stringify({ command: start(sleeps[0] ?? ""), timeout: 1 }),
              },
            ],
          },
          { text: "It timed out." },
        );
        const timedOut = await cli(["--allow-all-tools", "-p", "run", "--output-format", "json"]);
        expect(timedOut.code, timedOut.stderr).toBe(0);
        model.enqueue({
          toolCalls: [
            {
              id: "call_1",
              name: "bash",
              arguments: JSON.stringify({ command: start(sleeps[1] ?? "") }),
            },
          ],
        });
        const startedFile = join(repository, "started");
        rmSync(startedFile, { force: true });
        const cancelled = await cli(["--allow-all-tools", "-p", "run", "--output-format", "json"], {
          onStart: (child) => {
            const look = setInterval(() => {
              if (existsSync(startedFile)) {
                clearInterval(look);
                child.kill("SIGTERM");
              }
            }, 50);
            child.on("exit", () => clearInterval(look));
          },
        });
        expect(cancelled.code, cancelled.stderr).toBe(143);
        const [first, second] = sleeps.map((sleep) => pidsOf(sleep.replace(" ", "\0")));
        expect([first?.length, second?.length]).toEqual([1, 1]);
        const pidsIn = (stdout: string) =>
          (JSON.parse(stdout) as { left_running_pids: unknown }).left_running_pids;
        expect([pidsIn(timedOut.stdout), pidsIn(cancelled.stdout)]).toEqual([first, second]);
        // The model reads what ran on, then the stop line.
        const toolMessage = chatMessages(model, 1).find((message) => message.role === "tool");
        expect(toolMessage?.content).toBe(
          `Left running after the command was stopped: ${first?.[0]} \`${sleeps[0]}\`. They outlive this session: stop them (kill PID) when they are not needed.\nCommand timed out after 1 s; its process group was killed.`,
        );
      } finally {
        stopSleeps(sleeps);
      }
    });

    test("json: a prompt whose commands left nothing running has left_running_pids []", async ({
      cli,
      model,
    }) => {
      model.enqueue({ text: "Nothing to run." });
      const result = await cli(["-p", "hi", "--output-format", "json"]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ left_running_pids: [] });
    });
  },
);
