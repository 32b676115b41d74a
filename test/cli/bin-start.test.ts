/**
 * The `bin` file (`dist/cli/main.js`) starts as npm's `bin` link and editors start it: executed
 * itself, its first line giving Node the young-generation cap of issue 27 item 3
 * (`--max-semi-space-size=2`, src/cli/main.ts). Started as `node dist/cli/main.js` it works too,
 * without the cap.
 */

import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, test } from "vitest";
import { CLI_PATH, cleanEnvironment } from "../support/cli.js";

const SHEBANG = "#!/usr/bin/env -S node --max-semi-space-size=2";
const homes: string[] = [];

afterEach(() => {
  for (const home of homes.splice(0)) {
    rmSync(home, { recursive: true, force: true });
  }
});

/** Runs `command args` to its end; its exit code and output. */
function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

/**
 * Starts `command args` (which must be `turnloop acp`), sends `initialize`, and once it is answered
 * reads the process's command line from /proc; then ends its input and waits for its exit.
 */
async function acpCommandLine(command: string, args: string[]) {
  const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
  homes.push(home);
  const child = spawn(command, args, {
    cwd: home,
    env: cleanEnvironment({ HOME: home, TURNLOOP_HOME: home }),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines = createInterface({ input: child.stdout });
  const answered = new Promise<string>((resolve) => lines.once("line", resolve));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  const answer = JSON.parse(await answered) as {
    id: unknown;
    result?: { protocolVersion?: unknown };
  };
  const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  child.stdin.end();
  return {
    answer: { id: answer.id, protocolVersion: answer.result?.protocolVersion },
    commandLine,
    exitCode: await closed,
  };
}

describe("the bin file", () => {
  test("is executable and its first line starts node with the young-generation cap", () => {
    expect(readFileSync(CLI_PATH, "utf8").split("\n", 1)[0]).toBe(SHEBANG);
    expect(() => accessSync(CLI_PATH, constants.X_OK)).not.toThrow();
  });

  test("executed itself, it answers --version", async () => {
    expect(await run(CLI_PATH, ["--version"])).toEqual({ code: 0, stdout: "0.1.0\n" });
  });

  // /proc is Linux's; CI runs Linux, so this skips nowhere it must run.
  test.skipIf(process.platform !== "linux")(
    "`turnloop acp` executed itself runs node with the cap; `node dist/cli/main.js acp` runs without it",
    async () => {
      expect(await acpCommandLine(CLI_PATH, ["acp"])).toEqual({
        answer: { id: 1, protocolVersion: 1 },
        commandLine: ["node", "--max-semi-space-size=2", CLI_PATH, "acp"],
        exitCode: 0,
      });
      expect(await acpCommandLine(process.execPath, [CLI_PATH, "acp"])).toEqual({
        answer: { id: 1, protocolVersion: 1 },
        commandLine: [process.execPath, CLI_PATH, "acp"],
        exitCode: 0,
      });
    },
  );
});
