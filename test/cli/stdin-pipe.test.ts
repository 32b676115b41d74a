import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, constants, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { CLI_PATH, type CliResult, outputOf } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// Trial finding 5: `-p "…"` started by a program with a real pipe (Python's subprocess, Go's
// StdinPipe) that it neither writes nor closes waited for as long as the program lived. Node's
// spawn gives a socket, which `-p` already let go of after a second of silence.

const PROMPT_INPUT = fileURLToPath(new URL("../../dist/cli/prompt-input.js", import.meta.url));

/**
 * A named pipe in `folder`, opened as a program opens the pipe it starts a child with: the read
 * end to give the child, the write end to keep.
 */
function openPipe(folder: string): { read: number; write: number } {
  const path = join(folder, "stdin.fifo");
  execFileSync("mkfifo", [path]);
  // Opening the read end first without blocking lets the write end open at once.
  const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return { read, write: openSync(path, constants.O_WRONLY) };
}

/** Runs `program` (node `args`) with stdin `stdin`; resolves with its stdout once it has exited. */
function run(
  args: readonly string[],
  stdin: number,
  options: { cwd: string; env?: NodeJS.ProcessEnv; shell?: boolean },
): Promise<CliResult> {
  const { shell, ...spawnOptions } = options;
  const quoted = [process.execPath, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`);
  const child =
    shell === true
      ? // `; true` keeps the shell alive as turnloop's parent, as `shell=True` may.
        spawn("sh", ["-c", `${quoted.join(" ")}; true`], {
          ...spawnOptions,
          stdio: [stdin, "pipe", "pipe"],
        })
      : spawn(process.execPath, args, { ...spawnOptions, stdio: [stdin, "pipe", "pipe"] });
  return outputOf(child);
}

const ASK_ANCESTOR = [
  "--input-type=module",
  "-e",
  `import { ancestorWritesTo } from ${JSON.stringify(PROMPT_INPUT)}; console.log(ancestorWritesTo());`,
];

describe("-p with a pipe on stdin that is never written nor closed", () => {
  test("a prompt given as an argument goes on without stdin, the pipe still open", async ({
    model,
    repository,
    environment,
  }) => {
    model.enqueue({ text: "answered" });
    const pipe = openPipe(repository);
    try {
      const running = run([CLI_PATH, "-p", "hello"], pipe.read, {
        cwd: repository,
        env: environment(),
      });
      closeSync(pipe.read);
      const result = await running;
      expect(result, result.stderr).toMatchObject({ code: 0, stdout: "answered\n" });
      const user = chatMessages(model, -1).find((message) => message.role === "user");
      expect(user?.content).toBe("hello");
    } finally {
      closeSync(pipe.write);
    }
  });

  test("who writes the pipe: the program that started turnloop (directly or through a shell), or a sibling in a shell pipeline", async ({
    repository,
  }) => {
    const pipe = openPipe(repository);
    try {
      const direct = run(ASK_ANCESTOR, pipe.read, { cwd: repository });
      const throughShell = run(ASK_ANCESTOR, pipe.read, { cwd: repository, shell: true });
      closeSync(pipe.read);
      expect((await direct).stdout).toBe("true\n");
      expect((await throughShell).stdout).toBe("true\n");
    } finally {
      closeSync(pipe.write);
    }
    // In `cat gate | node …` the shell holds no end of the pipe: `cat`, its sibling, holds the
    // write end while it waits for the gate, which opens once the answer is in.
    const gate = join(repository, "gate.fifo");
    execFileSync("mkfifo", [gate]);
    const ask = ASK_ANCESTOR.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
    const pipeline = spawn("sh", ["-c", `cat gate.fifo | '${process.execPath}' ${ask}`], {
      cwd: repository,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [answer] = (await once(pipeline.stdout.setEncoding("utf8"), "data")) as [string];
    closeSync(openSync(gate, constants.O_WRONLY));
    await once(pipeline, "close");
    expect(answer).toBe("false\n");
  });
});
