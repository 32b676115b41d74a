import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { CANCELLED_AT_QUESTION } from "../support/event-sequences.js";
import { isAlive } from "../support/processes.js";
import { ChildFixture } from "./child-process.js";

const fixture = ChildFixture.forEachTest();

// An editor (or a supervisor) stopping `turnloop acp` with SIGTERM while a command runs: the
// command must not outlive the agent, and the session's log gets its end, as when stdin closes.
test("SIGTERM while a command runs: the prompt ends cancelled, the command is killed, exit 143", async () => {
  const command =
    "echo $$ > command.pid.partial; mv command.pid.partial command.pid; exec sleep 60";
  fixture.server.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const agent = fixture.startAgent();
  await agent.initialize();
  const sessionId = await agent.newSession();
  whenFileExists(join(fixture.cwd, "command.pid"), agent.process, () =>
    agent.process.kill("SIGTERM"),
  );
  expect(await agent.prompt(sessionId, "wait")).toEqual({ stopReason: "cancelled" });
  expect(await agent.exited).toBe(143);
  const pid = Number(readFileSync(join(fixture.cwd, "command.pid"), "utf8"));
  await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
  const log = await readFile(
    join(fixture.home, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  const types = log
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
  expect(types.slice(types.indexOf("tool.execution_start"))).toEqual(CANCELLED_AT_QUESTION);
});
