import { type ChildProcessByStdio, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { describe, expect } from "vitest";
import { CLI_PATH, whenFileExists } from "../support/cli.js";
import { type CliFixtures, type LoggedEvent, test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

// `turnloop -p … | head` and `… 2>&1 | head`: the reader goes away while we still write. The
// closed stream is found by the next write to it (EPIPE), which cancels the prompt like Ctrl-C;
// the process must exit with the documented code and leave a whole log, never hang or crash.

test.override({ git: true });

type Closed = "stdout" | "stderr" | "both";
type Moment = "before the first token" | "during a tool" | "mid-stream" | "after the answer";
type Child = ChildProcessByStdio<null, Readable, Readable>;

const ANSWER = Array.from({ length: 200 }, (_, index) => `line ${index}\n`);

/**
 * Runs a tool call then a streamed answer, closing `closed` at `moment`; resolves on 'exit'.
 * `cancelled`: the closing is to cancel the prompt, so the answer stalls after its 20th event
 * (until the request is cancelled): it cannot end before the failed write is noticed, which
 * Node reports a tick later, after an answer already read whole may have been played out.
 */
function runClosing(
  { model, repository, environment }: Pick<CliFixtures, "model" | "repository" | "environment">,
  { closed, moment, cancelled }: { closed: Closed; moment: Moment; cancelled: boolean },
): Promise<number | null> {
  // Two gates: the command waits for the file `go`, the answer stops after its first lines; the
  // one of the moment opens at the closing (so that comes while it goes on), the other at once.
  const answerHeld = gate();
  const releaseTool = () => writeFileSync(join(repository, "go"), "");
  const release = () => {
    releaseTool();
    answerHeld.open();
  };
  const command = "touch started; until [ -e go ]; do sleep 0.05; done; echo ok";
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    {
      text: ANSWER,
      pause: { afterEvents: 10, until: answerHeld.opened },
      ...(cancelled ? { stallAfterEvents: 20 } : {}),
    },
  );
  if (moment === "mid-stream") {
    releaseTool();
  } else if (moment !== "during a tool") {
    release();
  }
  // --verbose: every reply streams to stdout as it comes (text mode writes only the final answer,
  // once the prompt ends), so a reader can go away mid-stream.
  const child: Child = spawn(
    process.execPath,
    [CLI_PATH, "-p", "go", "--allow-all-tools", "--verbose"],
    {
      cwd: repository,
      env: environment(),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const close = () => {
    if (closed !== "stderr") {
      child.stdout.destroy();
    }
    if (closed !== "stdout") {
      child.stderr.destroy();
    }
    release();
  };
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (
      (moment === "mid-stream" && stdout.includes("line 3\n")) ||
      (moment === "after the answer" && stdout.includes("line 199\n"))
    ) {
      close();
    }
  });
  child.stderr.resume();
  if (moment === "before the first token") {
    close();
  }
  if (moment === "during a tool") {
    whenFileExists(join(repository, "started"), child, close);
  }
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
}

async function sessionLog(home: string): Promise<{ events: LoggedEvent[]; files: string[] }> {
  const [sessionId, ...others] = await readdir(join(home, "session-state"));
  expect(others).toEqual([]);
  const directory = join(home, "session-state", sessionId ?? "");
  const text = await readFile(join(directory, "events.jsonl"), "utf8");
  const events = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as LoggedEvent);
  return { events, files: await readdir(directory) };
}

/** Every turn and tool call that started has ended; the lock is released. */
function expectWhole(events: LoggedEvent[], files: string[]): void {
  const count = (type: string) => events.filter((event) => event.type === type).length;
  expect(count("assistant.turn_end")).toBe(count("assistant.turn_start"));
  expect(count("tool.execution_complete")).toBe(count("tool.execution_start"));
  expect(files).not.toContain("lock");
}

// Which closings the prompt sees: stdout carries the answer, stderr the tool line (written when
// the tool ends) and the summary. A stream closed while nothing more is written to it is not
// noticed before the answer is done.
const MOMENTS: Moment[] = [
  "before the first token",
  "during a tool",
  "mid-stream",
  "after the answer",
];
const CANCELLED_AT: Record<Closed, Moment[]> = {
  stdout: ["before the first token", "during a tool", "mid-stream"],
  stderr: ["before the first token", "during a tool"],
  both: ["before the first token", "during a tool", "mid-stream"],
};
const cases = (["stdout", "stderr", "both"] as const).flatMap((closed) =>
  MOMENTS.map((moment) => ({ closed, moment, cancelled: CANCELLED_AT[closed].includes(moment) })),
);

describe("a closed stdout or stderr", () => {
  test.for(cases)(
    "$closed closed $moment: exits (cancelled: $cancelled) with a whole log",
    { timeout: 60_000 },
    async ({ closed, moment, cancelled }, { model, home, repository, environment }) => {
      const code = await runClosing(
        { model, repository, environment },
        { closed, moment, cancelled },
      );
      const { events, files } = await sessionLog(home);
      expectWhole(events, files);
      const tool = events.find((event) => event.type === "tool.execution_complete");
      expect(tool?.data).toMatchObject({ toolCallId: "call_1", success: true });
      const messages = events.filter((event) => event.type === "assistant.message");
      if (cancelled) {
        expect(code).toBe(130);
        expect(events.at(-1)?.type).toBe("abort");
        // The answer was cut short (or never begun): not all of it is in the log.
        expect(messages.at(-1)?.data.content).not.toBe(ANSWER.join(""));
      } else {
        expect(code).toBe(0);
        expect(events.map((event) => event.type)).not.toContain("abort");
        expect(events.at(-1)?.type).toBe("assistant.turn_end");
        expect(messages.at(-1)?.data.content).toBe(ANSWER.join(""));
      }
    },
  );
});
