import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { AcpHarness } from "../acp/support.js";
import { type Fixture, startFixture } from "../sdk/support.js";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { makeTemporaryDirectory } from "./support.js";

// Issue 11: when opening a session repairs its log, each face says so once, with what was
// repaired: a stderr line for -p --resume, `_meta` on the ACP session/load or session/resume
// answer and a notice any client shows (issue 27 item 4; a thought where the client offers no
// `notice`), the session.resume event for SDK clients.

const NOTICE =
  /^repaired the session log: cut a torn last line \(line \d+, 17 bytes\); skipped 1 damaged line \(3\)$/;

/** A damaged middle line (the third) and a torn tail, as a disk fault and a crash leave them. */
async function damage(path: string): Promise<void> {
  const lines = (await readFile(path, "utf8")).split("\n");
  lines.splice(2, 0, "{this is not an event");
  await writeFile(path, lines.join("\n"));
  await appendFile(path, '{"type":"assistan');
}

function logOf(home: string, sessionId: string): string {
  return join(home, "session-state", sessionId, "events.jsonl");
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("a repaired log is reported once on every face", () => {
  test("-p --resume: one stderr line, and none on the next resume", async () => {
    const server = await startFakeModelServer();
    const home = await makeTemporaryDirectory();
    const cwd = await makeTemporaryDirectory();
    cleanup = () => server.close();
    const env = cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    });
    server.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
    const first = await runCli(["-p", "first"], { cwd, env });
    const sessionId = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    await damage(logOf(home, sessionId));
    const second = await runCli(["-p", "second", "--resume", sessionId], { cwd, env });
    expect(second.code).toBe(0);
    const notices = second.stderr.split("\n").filter((line) => line.includes("repaired"));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.replace(/^turnloop: /, "")).toMatch(NOTICE);
    const third = await runCli(["-p", "third", "--resume", sessionId], { cwd, env });
    expect(third.code).toBe(0);
    expect(third.stderr).not.toContain("repaired");
  }, 60_000);

  test.each([
    ["session/load", acp.methods.agent.session.load],
    ["session/resume", acp.methods.agent.session.resume],
  ] as const)("ACP %s: _meta on the answer and a notice, once", async (_name, method) => {
    let harness = await AcpHarness.start();
    cleanup = () => harness.close();
    const sessionId = await harness.newSession();
    harness.server.enqueue({ text: "one" });
    await harness.prompt(sessionId, "first");
    harness = await harness.restart();
    await damage(logOf(harness.home, sessionId));
    const load = { sessionId, cwd: harness.cwd, mcpServers: [] };
    const answer: acp.LoadSessionResponse = await harness.client.request(method, load);
    expect(answer._meta?.["turnloop/logRepaired"]).toMatch(NOTICE);
    // Also where any client's user sees it, never as part of a reply (acp/notices.ts): this
    // client offers no `notice` updates, so a thought right after the answer.
    const isNotice = (update: acp.SessionUpdate) =>
      update.sessionUpdate === "agent_thought_chunk" &&
      update.content.type === "text" &&
      update.content.text.startsWith("⚠ turnloop repaired the session log");
    await harness.waitForUpdate(isNotice);
    const notice = harness.updates(sessionId).filter(isNotice);
    expect(
      notice.map((update) => update.sessionUpdate === "agent_thought_chunk" && update.content),
    ).toEqual([
      {
        type: "text",
        text: expect.stringMatching(/^⚠ turnloop repaired the session log: .*\(3\)\n$/),
      },
    ]);
    harness = await harness.restart();
    const again: acp.LoadSessionResponse = await harness.client.request(method, load);
    expect(again._meta).toBeUndefined();
  });

  test("SDK resumeSession: a session.resume event with the notice, once", async () => {
    const fixture: Fixture = await startFixture();
    cleanup = () => fixture.close();
    const client = fixture.client();
    const session = await client.createSession({});
    fixture.model.enqueue({ text: "one" });
    await session.sendAndWait({ prompt: "first" });
    await client.stop();
    await damage(logOf(fixture.home, session.sessionId));
    const resumed = async () => {
      const next = fixture.client();
      const events: SessionEvent[] = [];
      const reopened = await next.resumeSession(session.sessionId);
      reopened.on((event) => events.push(event as SessionEvent));
      fixture.model.enqueue({ text: "more" });
      await reopened.sendAndWait({ prompt: "more" });
      await next.stop();
      return events.filter((event) => event.type === "session.resume");
    };
    const first = await resumed();
    expect(first.map((event) => event.type === "session.resume" && event.data.notice)).toEqual([
      expect.stringMatching(NOTICE),
    ]);
    expect(await resumed()).toEqual([]);
  });
});
