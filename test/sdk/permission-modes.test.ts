import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import type { SessionConfig, TurnloopClient } from "../../src/sdk/index.js";
import { removeTree } from "../support/remove-tree.js";
import { callingTools } from "../support/replies.js";
import { requireSandbox } from "../support/sandbox.js";
import { fixtureForFile } from "./support.js";

/**
 * An SDK session in mode `autopilot` runs under permission mode `auto`, as `--autopilot` and
 * ACP's autopilot do (README, "Permission modes"): commands run in the sandbox without asking,
 * so an unattended app needs no handler that approves everything. In `interactive` the server's
 * permission mode (`ask` by default) holds.
 */

const sandboxWorks = await requireSandbox();
const fixture = fixtureForFile();
let outside: string;
let client: TurnloopClient;

beforeAll(async () => {
  outside = await mkdtemp(join("/var/tmp", "turnloop-sdk-modes-outside-"));
  client = await fixture.startedClient();
});
afterAll(async () => {
  await removeTree(outside);
});

/**
 * A session of `config` (no permission handler) whose model runs `echo hi`, then writes
 * `<outside>/<name>`, then calls `task_complete` (in autopilot) or answers: the results the model read, whether the file
 * was written, and the kinds of the permission requests.
 */
async function runUnattended(
  name: string,
  config: SessionConfig,
): Promise<{ results: unknown[]; written: boolean; asked: number }> {
  const session = await client.createSession(config);
  const results: unknown[] = [];
  let asked = 0;
  session.on((event: WireEvent) => {
    if (event.type === "tool.execution_complete") {
      results.push(event.data.result?.content ?? event.data.error?.message);
    } else if (event.type === "permission.requested") {
      asked += 1;
    }
  });
  const path = join(outside, name);
  fixture.model.enqueue(
    callingTools(
      ["call_echo", "bash", { command: "echo hi" }],
      ["call_write", "bash", { command: `echo x > ${path}` }],
    ),
    config.mode === "autopilot"
      ? callingTools(["call_done", "task_complete", { summary: "Done." }])
      : { text: "Done." },
  );
  await session.sendAndWait({ prompt: "go" });
  return { results, written: existsSync(path), asked };
}

const HI = "hi\n<exited with exit code 0>";
const DENIED_NO_HANDLER =
  "Permission denied for 'bash': it needs approval and the app registered no permission handler (onPermissionRequest)";

test.runIf(sandboxWorks)(
  "mode autopilot runs commands in the sandbox without asking (its own policy workspace-write or the session's), while interactive asks",
  async () => {
    const chosen = await runUnattended("chosen.txt", {
      mode: "autopilot",
      sandbox: "workspace-write",
    });
    const byDefault = await runUnattended("default.txt", { mode: "autopilot" });
    const interactive = await runUnattended("interactive.txt", { sandbox: "workspace-write" });
    const stopped = (file: string) =>
      `bash: line 1: ${join(outside, file)}: Read-only file system\n<exited with exit code 1>\n` +
      "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
      "(Read-only file system). It was not run outside the sandbox: nobody could be asked (the " +
      "app registered no handler of requests to leave the sandbox, onSandboxBypassRequest); " +
      "start the server with --add-dir <folder> (sandboxed commands may write there too), or " +
      "register one to be asked.";
    expect(chosen).toEqual({
      results: [HI, stopped("chosen.txt"), "Task complete: Done."],
      written: false,
      asked: 0,
    });
    expect(byDefault).toEqual({
      results: [HI, stopped("default.txt"), "Task complete: Done."],
      written: false,
      asked: 0,
    });
    expect(interactive).toEqual({
      results: [DENIED_NO_HANDLER, DENIED_NO_HANDLER],
      written: false,
      asked: 0,
    });
  },
);
