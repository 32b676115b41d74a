/**
 * A `-p` killed while its parent does not wait for it (a container whose first process reaps no
 * orphans) stays a zombie in the process table: its session's lock names a pid that `kill(pid, 0)`
 * still finds. The next `--continue` took it for a running holder ("open in another process");
 * an ended process holds nothing (src/session/lock-file.ts `isAlive`).
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH, whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

/** The state letter of `/proc/<pid>/stat` ("R", "S", "Z", …). */
function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.charAt(stat.lastIndexOf(")") + 2);
}

describe("a session whose -p ended as a zombie", () => {
  test("--continue takes it over: the zombie's lock is stale", async ({
    cli,
    model,
    environment,
    repository,
  }) => {
    model.enqueue({
      toolCalls: [
        {
          id: "call_1",
          name: "bash",
          arguments: JSON.stringify({ command: "touch started; sleep 30" }),
        },
      ],
    });
    // The shell starts turnloop in the background, prints its pid and becomes `sleep`, which never
    // waits for its children: turnloop, once killed, stays a zombie until `sleep` ends.
    const parent = spawn(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${CLI_PATH}" -p wait --allow-all-tools & echo $!; exec sleep 120`,
      ],
      { cwd: repository, env: environment(), stdio: ["ignore", "pipe", "ignore"] },
    );
    try {
      const turnloopPid = await new Promise<number>((resolve) => {
        parent.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      });
      await new Promise<void>((resolve) =>
        whenFileExists(join(repository, "started"), parent, () => resolve()),
      );
      process.kill(turnloopPid, "SIGKILL");
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (processState(turnloopPid) === "Z") {
            clearInterval(poll);
            resolve();
          }
        }, 20);
      });

      model.enqueue({ text: "resumed fine" });
      const resumed = await cli(["-p", "again", "--continue"]);
      expect({ code: resumed.code, stdout: resumed.stdout, stderr: resumed.stderr }).toMatchObject({
        code: 0,
        stdout: "resumed fine\n",
      });
      expect(resumed.stderr).not.toContain("open in another process");
    } finally {
      parent.kill("SIGKILL");
    }
  });
});
