import { writeFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { previewCut } from "../../src/tools/command-output.js";
import { killCommandProcessGroups } from "../../src/tools/command-process.js";
import type { CommandRequest, CommandResult } from "../../src/tools/command-runner.js";
import { ProcessRunner } from "../../src/tools/process-runner.js";
import { isDeadSoon, survivorsOf, uniqueSleepLength } from "../support/processes.js";
import { threadPoolRequests } from "../support/thread-pool.js";
import { commandRequest, useTemporaryDirectory } from "./tool-context.js";

let directory: string;

/** Marks the sleeps these tests start, so the process table shows any left alive. */
const LONG_SLEEP = uniqueSleepLength();

useTemporaryDirectory((path) => {
  directory = path;
});

afterAll(async () => {
  expect(await survivorsOf(LONG_SLEEP)).toEqual([]);
});

/** A request in the test's folder with only `PATH` in the environment, unless told otherwise. */
function request(overrides: Partial<CommandRequest> = {}): CommandRequest {
  return commandRequest(directory, overrides);
}

/** A request whose signal aborts once the command printed a line (its background child's pid). */
function cancelledAfterFirstLine(): CommandRequest {
  const controller = new AbortController();
  return request({
    signal: controller.signal,
    onOutput: (output) => {
      if (output.includes("\n")) {
        controller.abort();
      }
    },
  });
}

/** What a command the runner stopped answers: no exit code nor signal, `output` whole. */
function stoppedAfterPrinting(output: string, stopped: "cancelled" | "timeout"): CommandResult {
  return { exitCode: null, signal: null, output, truncated: false, stopped };
}

describe("the process runner", () => {
  it("runs bash -c in the cwd, in exactly the environment it is given", async () => {
    const runner = new ProcessRunner();
    const result = await runner.run(
      'pwd; printenv ONLY_THIS; printenv HOME || echo "no HOME"; exit 4',
      request({ env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ONLY_THIS: "given" } }),
    );
    expect(result).toEqual({
      exitCode: 4,
      signal: null,
      output: `${directory}\ngiven\nno HOME\n`,
      truncated: false,
    });
  });

  it("starts a command with no thread-pool request (the working folder's stat was one)", async () => {
    // Issue 26, round 3 session 41: the cwd check runs on the calling thread (tool-support.ts
    // `statIfExists`); a thread-pool round trip cost the main thread more than the stat.
    const runner = new ProcessRunner();
    await runner.run("true", request()); // the first command loads the spawn and reaper modules
    let result: CommandResult | undefined;
    const requests = await threadPoolRequests(async () => {
      result = await runner.run("echo ran", request());
    });
    expect(result).toEqual({ exitCode: 0, signal: null, output: "ran\n", truncated: false });
    expect(requests).toBe(0);
  });

  it("runs the argv a wrapper makes of the command (as a sandbox does)", async () => {
    const runner = new ProcessRunner({
      wrap: (command) => ({ file: "sh", args: ["-c", `echo wrapped by sh; ${command}`] }),
    });
    expect(await runner.run("echo $0", request())).toEqual({
      exitCode: 0,
      signal: null,
      output: "wrapped by sh\nsh\n",
      truncated: false,
    });
  });

  it("on cancel, kills the whole group, background children included", async () => {
    const runner = new ProcessRunner();
    const result = await runner.run(
      `sleep ${LONG_SLEEP} & echo $!; wait`,
      cancelledAfterFirstLine(),
    );
    const pid = Number.parseInt(result.output, 10);
    expect(result).toEqual(stoppedAfterPrinting(`${pid}\n`, "cancelled"));
    expect(await isDeadSoon(pid)).toBe(true);
  });

  it("on timeout, kills the group, SIGKILL for children that ignore SIGTERM", async () => {
    const runner = new ProcessRunner();
    const result = await runner.run(
      `trap '' TERM; sleep ${LONG_SLEEP} & echo $!; wait`,
      request({ timeoutMs: 300 }),
    );
    const pid = Number.parseInt(result.output, 10);
    expect(result).toEqual(stoppedAfterPrinting(`${pid}\n`, "timeout"));
    // SIGKILL follows SIGTERM two seconds later.
    expect(await isDeadSoon(pid, 4_000)).toBe(true);
  });

  it("killCommandProcessGroups ends a running command's group at once (a second Ctrl-C)", async () => {
    const runner = new ProcessRunner();
    let pid = 0;
    const result = await runner.run(
      `trap '' TERM; sleep ${LONG_SLEEP} & echo $!; wait`,
      request({
        onOutput: (output) => {
          if (pid === 0 && output.includes("\n")) {
            pid = Number.parseInt(output, 10);
            killCommandProcessGroups();
          }
        },
      }),
    );
    expect(result).toEqual({
      exitCode: null,
      signal: "SIGKILL",
      output: `${pid}\n`,
      truncated: false,
    });
    expect(await isDeadSoon(pid)).toBe(true);
  });

  it("keeps the head and tail past the limit and saves the whole output, secrets redacted", async () => {
    const runner = new ProcessRunner({ maxOutputCharacters: 1_000 });
    const secret = "s3cret-value-for-the-test";
    const result = await runner.run(
      `echo "key ${secret}"; seq 1 2000`,
      request({ secrets: [{ name: "TEST_TOKEN", value: secret }] }),
    );
    const whole = `key ${secret}\n${Array.from({ length: 2_000 }, (_, index) => index + 1).join("\n")}\n`;
    const savePath = join(directory, "saved", "output.txt");
    // Head (400 characters) and tail (600) cut on line boundaries (trial 37 F5).
    const firstPart = whole.slice(0, 400);
    const head = firstPart.slice(0, firstPart.lastIndexOf("\n") + 1);
    const lastPart = whole.slice(-601);
    const tail = lastPart.slice(lastPart.indexOf("\n") + 1);
    const omitted = Buffer.byteLength(whole) - head.length - tail.length;
    const lines = whole.slice(head.length, -tail.length).split("\n").length - 1;
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      output: `${head}\n[… ${lines.toLocaleString("en-US")} lines (${omitted} bytes) omitted; full output saved to ${savePath}]\n${tail}`,
      truncated: true,
    });
    expect(await readFile(savePath, "utf8")).toBe(whole.replace(secret, "[redacted:TEST_TOKEN]"));
    expect((await stat(savePath)).mode & 0o777).toBe(0o600);
  });

  it("reports the output while it runs, past the limit with the line breaks cut counted, and what it printed last before the result", async () => {
    const runner = new ProcessRunner({ maxOutputCharacters: 1_000 });
    const reports: string[] = [];
    // The command goes on once its output has been reported: the last line comes after a report.
    const gate = join(directory, "gate");
    const result = await runner.run(
      `seq 1 2000; while [ ! -e ${gate} ]; do sleep 0.05; done; echo last`,
      request({
        onOutput: (output) => {
          reports.push(output);
          writeFileSync(gate, "");
        },
      }),
    );
    expect(result.exitCode).toBe(0);
    const last = reports.at(-1) ?? "";
    expect(last.endsWith("\n1999\n2000\nlast\n")).toBe(true);
    const cut = previewCut(last);
    expect(cut?.head).toBe(result.output.slice(0, 400));
    // Every line of the output is in the head, the tail, or counted as cut.
    const lineBreaks = (text: string) => text.split("\n").length - 1;
    expect(
      lineBreaks(cut?.head ?? "") + (cut?.cutLineBreaks ?? 0) + lineBreaks(cut?.tail ?? ""),
    ).toBe(2_001);
    expect(last).toMatch(/\n\[… \d+ lines cut …\]\n/);
  });

  it("reports a command that cannot start, and a missing working directory", async () => {
    const missingProgram = new ProcessRunner({
      wrap: () => ({ file: join(directory, "no-such-program"), args: [] }),
    });
    const missingCwd = join(directory, "missing");
    expect([
      await missingProgram.run("true", request()),
      await new ProcessRunner().run("true", request({ cwd: missingCwd })),
    ]).toEqual([
      {
        exitCode: null,
        signal: null,
        output: "",
        truncated: false,
        startError: `Could not start ${join(directory, "no-such-program")}: spawn ${join(directory, "no-such-program")} ENOENT`,
      },
      {
        exitCode: null,
        signal: null,
        output: "",
        truncated: false,
        startError: `Working directory ${missingCwd} does not exist.`,
      },
    ]);
  });
});
