import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import type { ToolContext } from "../../src/tools/define-tool.js";
import {
  isDeadSoon,
  processesWithMarker,
  survivorsOf,
  uniqueSleepLength,
} from "../support/processes.js";
import { makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

let directory: string;

/** Marks the sleeps these tests start, so the process table shows any left alive. */
const LONG_SLEEP = uniqueSleepLength();

useTemporaryDirectory((path) => {
  directory = path;
});

function bash(args: Record<string, unknown>, overrides: Partial<ToolContext> = {}) {
  return runTool(bashTool, args, makeContext(directory, overrides));
}

afterAll(async () => {
  expect(await survivorsOf(LONG_SLEEP)).toEqual([]);
});

describe("bash", () => {
  it("the process-table scan used after these tests sees a marked process", async () => {
    const sleeper = spawn("sleep", [LONG_SLEEP], { stdio: "ignore" });
    const exited = new Promise((resolve) => sleeper.once("exit", resolve));
    await new Promise((resolve) => sleeper.once("spawn", resolve));
    expect(await processesWithMarker(LONG_SLEEP)).toEqual([`${sleeper.pid}: sleep ${LONG_SLEEP}`]);
    sleeper.kill("SIGKILL");
    await exited;
    expect(await processesWithMarker(LONG_SLEEP)).toEqual([]);
  });

  it("ends the output with the exit code line from Copilot CLI's transcript", async () => {
    expect(await bash({ command: "echo hello && echo world", description: "Run echo" })).toEqual({
      content: "hello\nworld\n<exited with exit code 0>",
      isError: false,
      exitCode: 0,
    });
    expect(await bash({ command: "printf partial; exit 3" })).toEqual({
      content: "partial\n<exited with exit code 3>",
      isError: false,
      exitCode: 3,
    });
  });

  it("interleaves stderr with stdout in arrival order", async () => {
    const result = await bash({ command: "echo error_msg >&2; sleep 0.1; echo ok" });
    expect(result.content).toBe("error_msg\nok\n<exited with exit code 0>");
  });

  it("runs in the cwd with stdin closed and pagers disabled", async () => {
    const result = await bash({ command: 'pwd; cat; echo "$PAGER $GIT_PAGER"' });
    expect(result.content).toBe(`${directory}\ncat cat\n<exited with exit code 0>`);
  });

  it("kills the whole group on timeout, even children that ignore SIGTERM", async () => {
    const result = await bash({
      command: `trap '' TERM; sleep ${LONG_SLEEP} & echo $!; wait`,
      timeout: 0.5,
    });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^\d+\nCommand timed out after 0\.5 s/);
    expect(await isDeadSoon(Number.parseInt(result.content, 10))).toBe(true);
  });

  it("stops on cancel and leaves no grandchild behind", async () => {
    const controller = new AbortController();
    const result = await bash(
      { command: `sleep ${LONG_SLEEP} & echo $!; wait` },
      {
        signal: controller.signal,
        onPartialResult: (output) => {
          if (output.includes("\n")) {
            controller.abort();
          }
        },
      },
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^\d+\nCommand cancelled; its process group was killed\.$/);
    expect(await isDeadSoon(Number.parseInt(result.content, 10))).toBe(true);
  });

  it("does not hang when a background child keeps the pipes open, and says it was stopped", async () => {
    // Without the grace, this would wait for the sleep (97 s) and the test would time out.
    const result = await bash({ command: `sleep ${LONG_SLEEP} & echo $!` });
    // A trial of session 18's build (round 3, session 19, item 3): the model was told nothing.
    const pid = Number.parseInt(result.content, 10);
    expect(result.content).toBe(
      `${pid}\n<exited with exit code 0>\nThe background process that still held this command's output when it exited was stopped: ${pid} \`sleep ${LONG_SLEEP}\`. Those whose output goes elsewhere run on: to keep one running, start it so: \`nohup server > server.log 2>&1 &\`.`,
    );
    expect(result.isError).toBe(false);
    // The group is ended once its pipes are abandoned, so nothing outlives the call.
    expect(await isDeadSoon(Number.parseInt(result.content, 10))).toBe(true);
  });

  it("a background child that held the output is stopped, not one started with nohup (trial 37 F3)", async () => {
    const log = `${directory}/server.log`;
    const result = await bash({
      command: `nohup sleep ${LONG_SLEEP} > ${log} 2>&1 & echo $!; sleep ${LONG_SLEEP} & echo $!`,
    });
    const [detached = "", held = ""] = result.content.split("\n");
    expect(result.content).toBe(
      `${detached}\n${held}\n<exited with exit code 0>\nThe background process that still held this command's output when it exited was stopped: ${held} \`sleep ${LONG_SLEEP}\`. Those whose output goes elsewhere run on: to keep one running, start it so: \`nohup server > server.log 2>&1 &\`.\nLeft running after the command exited: ${detached} \`sleep ${LONG_SLEEP}\`. They outlive this session: stop them (kill PID) when they are not needed.`,
    );
    expect(await isDeadSoon(Number(held))).toBe(true);
    expect(await processesWithMarker(LONG_SLEEP)).toEqual([`${detached}: sleep ${LONG_SLEEP}`]);
    process.kill(Number(detached), "SIGKILL");
    expect(await isDeadSoon(Number(detached))).toBe(true);
  });

  it("a background child whose output goes elsewhere runs on, named as left running (trial 40 F12), no stop said", async () => {
    const marker = `${directory}/background-done`;
    // The child runs on until the test opens its gate (after the tool's answer), then leaves its
    // marker: a child the tool stopped leaves none. It gives up after 30 s, leaving none either.
    const gate = `${directory}/gate`;
    const wait = `for ((i = 0; i < 600; i++)); do [ -e ${gate} ] && break; sleep 0.05; done`;
    const command = `(${wait}; [ -e ${gate} ] && touch ${marker}) > /dev/null 2>&1 & echo started`;
    const result = await bash({ command });
    // The subshell left running (a bash of the command's own command line), named by its pid and
    // command line, and its sleep when the list is taken during one: under load the list can be
    // taken before the subshell's fork, or between the fork and the `exec` of `sleep` (a second
    // bash then); CI once saw it taken in that gap.
    expect(result.content).toMatch(
      /^started\n<exited with exit code 0>\nLeft running after the command exited: \d+ `bash -c \(for \(\(i = 0; [^`]*`(, \d+ `(sleep 0\.05|bash -c \(for \(\(i = 0; [^`]*)`)?\. They outlive this session: stop them \(kill PID\) when they are not needed\.$/,
    );
    expect(existsSync(marker)).toBe(false);
    await writeFile(gate, "");
    await expect.poll(() => existsSync(marker), { timeout: 10_000 }).toBe(true);
  });

  it("cuts a huge output on line boundaries, and the marker counts the lines cut (trial 37 F5)", async () => {
    const result = await bash({ command: 'seq -f "line-%g-of-output" 1 20000; echo end' });
    const match =
      /^([\s\S]*)\n\[… ([\d,]+) lines \((\d+) bytes\) omitted; [^\n]*\]\n([\s\S]*)\n<exited with exit code 0>$/.exec(
        result.content,
      );
    const [, head = "", lines = "", , tail = ""] = match ?? [];
    const headLines = head.replace(/\n$/, "").split("\n");
    const tailLines = tail.split("\n");
    expect(tailLines.at(-1)).toBe("end");
    for (const line of [...headLines, ...tailLines.slice(0, -1)]) {
      expect(line).toMatch(/^line-\d+-of-output$/);
    }
    const number = (line: string | undefined) => Number(/\d+/.exec(line ?? "")?.[0]);
    expect(number(headLines[0])).toBe(1);
    expect(Number(lines.replaceAll(",", ""))).toBe(
      number(tailLines[0]) - number(headLines.at(-1)) - 1,
    );
  });

  it("keeps the head and tail of huge output and saves all of it to a file", async () => {
    const result = await bash({ command: "seq 1 200000" });
    const expected = `${Array.from({ length: 200_000 }, (_, index) => index + 1).join("\n")}\n`;
    expect(result.isError).toBe(false);
    expect(result.content.length).toBeLessThan(30_500);
    expect(result.content.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.content.endsWith("199999\n200000\n<exited with exit code 0>")).toBe(true);
    const note = /\n\[… ([\d,]+) lines \((\d+) bytes\) omitted; full output saved to (.+)\]\n/.exec(
      result.content,
    );
    expect(note).not.toBeNull();
    const savedPath = note?.[3] ?? "";
    expect(savedPath.startsWith(`${directory}/.session/`)).toBe(true);
    expect(await readFile(savedPath, "utf8")).toBe(expected);
    const shownBytes = Buffer.byteLength(result.content.replace(note?.[0] ?? "", ""));
    expect(Number(note?.[2])).toBeGreaterThan(expected.length - shownBytes - 100);
    // The line breaks left out: the output's 200,000 but those the head and tail show.
    const [head = "", tail = ""] = result.content.split(note?.[0] ?? "");
    const shownBreaks = `${head}${tail}`.split("\n").length - 1;
    expect(note?.[1]).toBe((200_000 - shownBreaks).toLocaleString("en-US"));
  });

  it("streams partial output while the command runs", async () => {
    const partials: string[] = [];
    const result = await bash(
      { command: "echo one; sleep 0.3; echo two" },
      { onPartialResult: (output) => partials.push(output) },
    );
    expect(result.content).toBe("one\ntwo\n<exited with exit code 0>");
    expect(partials[0]).toBe("one\n");
  });

  it("reports a missing working directory as an error", async () => {
    const result = await bash({ command: "true" }, { cwd: `${directory}/missing` });
    expect(result).toEqual({
      content: `Working directory ${directory}/missing does not exist.`,
      isError: true,
    });
  });
});

describe("bash: commands that would wait for a person, and screen codes", () => {
  it("a git commit without -m ends with git's error instead of waiting for an editor", async () => {
    const git = "git -c user.email=t@example.com -c user.name=t";
    const result = await bash({ command: `git init -q . && ${git} commit --allow-empty` });
    expect(result.exitCode).toBe(1);
    expect(result.content.split("\n")[0]).toBe(
      "turnloop: no editor here (no terminal, stdin closed): give the text in the command, e.g. git commit -m",
    );
    expect(result.content).toContain("Please supply the message using either -m or -F option.");
  });

  it("a command's terminal control sequences are not what the model reads", async () => {
    const result = await bash({
      command: String.raw`printf '\033]0;TITLE\007\033[31mred\033[0m \033[2J\033[Hcleared\n10%%\r55%%\r100%%\r\nbell\a\n'`,
    });
    expect(result.content).toBe("red cleared\n100%\nbell\n<exited with exit code 0>");
  });
});
