import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { approveAll, TurnloopClient } from "../../src/sdk/index.js";
import { whenFileExists } from "../support/cli.js";
import { CANCELLED_AT_QUESTION, UNTIL_TOOL_START } from "../support/event-sequences.js";
import { isAlive } from "../support/processes.js";
import { fixtureForEachTest } from "./support.js";
import { startTcpServer } from "./tcp-server.js";

const fixture = fixtureForEachTest();

// A supervisor's stop or a closed terminal while a server's session runs a command: the server
// cancels and closes its sessions before it exits, as on SIGINT, so the command is stopped and
// the log ends (Node's default for SIGHUP exits at once and leaves the command running).
test.for(["SIGTERM", "SIGHUP"] as const)(
  "%s while a command runs: the command is stopped, the log ends with the abort and the shutdown",
  async (signal) => {
    const tcp = await startTcpServer(fixture);
    fixture.onClose(() => tcp.stop());
    const command =
      "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";
    fixture.model.enqueue({
      toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
    });
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    fixture.onClose(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    whenFileExists(join(fixture.cwd, "command.pid"), tcp.process, () => tcp.process.kill(signal));
    await session.send({ prompt: "wait" });
    await tcp.exited;
    const pid = Number(readFileSync(join(fixture.cwd, "command.pid"), "utf8"));
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    const log = await readFile(
      join(fixture.home, "session-state", session.sessionId, "events.jsonl"),
      "utf8",
    );
    const types = log
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual([
      ...UNTIL_TOOL_START.slice(0, -1),
      ...CANCELLED_AT_QUESTION,
      "session.shutdown",
    ]);
  },
);
