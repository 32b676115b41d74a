import {
  approveAll,
  CopilotClient,
  type CopilotSession,
  RuntimeConnection,
  type SessionEvent,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { recordEvents, useCopilotClient } from "./extended-support.js";
import { MODEL } from "./support.js";

/**
 * Issue 25, extended: the session's grants (`session.permissions.resetSessionApprovals`,
 * `modifyRules`) and its name (`session.name.*`, `session.title_changed`), driven through the
 * official `@github/copilot-sdk` over the built CLI against the fake model.
 */

const setup = useCopilotClient();

/** The app's events of `types`, as `[type, data]`. */
function only(events: readonly SessionEvent[], ...types: string[]): Array<[string, unknown]> {
  return events.flatMap((event) => (types.includes(event.type) ? [[event.type, event.data]] : []));
}

describe("session.permissions grants", () => {
  test("resetSessionApprovals and modifyRules replace the session's grants, which a resume keeps", async () => {
    // Without --yolo, so that `bash` asks the app.
    const asking = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: setup.fixture.env }),
      workingDirectory: setup.fixture.cwd,
    });
    await asking.start();
    try {
      const asked: string[] = [];
      let answer: "approve-for-session" | "approve-once" = "approve-for-session";
      const onPermissionRequest = (request: { kind: string }) => {
        asked.push(`${request.kind} ${answer}`);
        return { kind: answer };
      };
      let calls = 0;
      const echo = async (session: CopilotSession) => {
        calls += 1;
        const call = { id: `call_${calls}`, name: "bash", arguments: '{"command":"echo hi"}' };
        setup.fixture.model.enqueue({ toolCalls: [call] }, { text: "done" });
        await session.sendAndWait({ prompt: "echo" });
      };
      const session = await asking.createSession({ onPermissionRequest });
      const events = recordEvents(session);
      await echo(session);
      await echo(session);
      expect(asked).toEqual(["shell approve-for-session"]);

      expect(await session.rpc.permissions.resetSessionApprovals({})).toEqual({ success: true });
      answer = "approve-once";
      await echo(session);
      expect(asked).toEqual(["shell approve-for-session", "shell approve-once"]);

      const rule = { kind: "bash", argument: "echo *" };
      expect(await session.rpc.permissions.modifyRules({ scope: "session", add: [rule] })).toEqual({
        success: true,
      });
      await echo(session);
      expect(asked).toHaveLength(2);
      await expect(
        session.rpc.permissions.modifyRules({ scope: "location", add: [rule] }),
      ).rejects.toThrow("location rules are not supported by turnloop");
      await expect(
        session.rpc.permissions.modifyRules({
          scope: "session",
          add: [{ kind: "bash(", argument: null }],
        }),
      ).rejects.toThrow('invalid tool rule "bash("');
      // Another agent's name for a tool matches no call: refused as the flags refuse it, naming the
      // rule meant, and the batch's other rule is not added either.
      for (const [kind, argument, meant] of [
        ["shell", "rm", "bash(rm)"],
        ["Bash", "rm *", "bash(rm *)"],
        ["Read", null, "view"],
      ] as const) {
        const refused = session.rpc.permissions.modifyRules({
          scope: "session",
          add: [
            { kind: "bash", argument: "ls" },
            { kind, argument },
          ],
        });
        await expect(refused).rejects.toThrow(`did you mean ${meant}?`);
        await expect(refused).rejects.toMatchObject({ code: -32602 });
      }
      expect(only(events, "session.grants_changed")).toEqual([
        ["session.grants_changed", { allow: [], deny: [] }],
        ["session.grants_changed", { allow: ["bash(echo *)"], deny: [] }],
      ]);

      await session.disconnect();
      const resumed = await asking.resumeSession(session.sessionId, { onPermissionRequest });
      await echo(resumed);
      expect(asked).toHaveLength(2);
      await resumed.rpc.permissions.modifyRules({ scope: "session", removeAll: true });
      await echo(resumed);
      expect(asked).toEqual([
        "shell approve-for-session",
        "shell approve-once",
        "shell approve-once",
      ]);
      await resumed.disconnect();
    } finally {
      await asking.stop();
    }
  });
});

describe("session.name", () => {
  test("set, setAuto and get; session.title_changed; the name survives resume", async () => {
    const session = await setup.client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    expect(await session.rpc.name.get()).toEqual({ name: null });
    expect(await session.rpc.name.setAuto({ summary: "   " })).toEqual({ applied: false });
    expect(await session.rpc.name.setAuto({ summary: "  fixing the build " })).toEqual({
      applied: true,
    });
    expect(await session.rpc.name.get()).toEqual({ name: "fixing the build" });
    await session.rpc.name.set({ name: "release notes" });
    expect(await session.rpc.name.setAuto({ summary: "another" })).toEqual({ applied: false });
    await expect(session.rpc.name.set({ name: "x".repeat(101) })).rejects.toThrow(
      "session.name.set",
    );
    expect(only(events, "session.title_changed")).toEqual([
      ["session.title_changed", { title: "fixing the build" }],
      ["session.title_changed", { title: "release notes" }],
    ]);

    await session.disconnect();
    const resumed = await setup.client.resumeSession(session.sessionId, {
      onPermissionRequest: approveAll,
    });
    expect(await resumed.rpc.name.get()).toEqual({ name: "release notes" });
    await resumed.disconnect();

    const unnamed = await setup.client.createSession({ onPermissionRequest: approveAll });
    setup.fixture.model.enqueue({ text: "hello" });
    await unnamed.sendAndWait({ prompt: "say hello" });
    expect(await unnamed.rpc.name.get()).toEqual({ name: "say hello" });
    await unnamed.disconnect();

    // The list (`sessions.list`, as the SDK's generated `rpc.sessions.list` sends it) gives each
    // entry's `name` where one was set (Copilot's `LocalSessionMetadataValue.name`), beside the
    // first prompt as its `summary`.
    const { sessions } = await setup.client.rpc.sessions.list({});
    const entry = (sessionId: string) => {
      const found = sessions.find((candidate) => candidate.sessionId === sessionId);
      return found === undefined ? undefined : { ...found, startTime: "t", modifiedTime: "t" };
    };
    const common = { startTime: "t", modifiedTime: "t", isRemote: false };
    const context = { cwd: setup.fixture.cwd };
    expect([entry(session.sessionId), entry(unnamed.sessionId)]).toEqual([
      {
        sessionId: session.sessionId,
        ...common,
        name: "release notes",
        context,
        model: MODEL,
        turns: 0,
      },
      {
        sessionId: unnamed.sessionId,
        ...common,
        summary: "say hello",
        context,
        model: MODEL,
        turns: 1,
      },
    ]);
  });
});

describe("session.metadata", () => {
  test("snapshot describes the session; isProcessing is true while a prompt runs", async () => {
    // Streaming, so that the fake model's reply holds at its gate.
    const session = await setup.client.createSession({
      onPermissionRequest: approveAll,
      streaming: true,
    });
    await session.rpc.name.set({ name: "metadata" });
    const snapshot = await session.rpc.metadata.snapshot();
    expect(snapshot).toEqual({
      sessionId: session.sessionId,
      startTime: expect.any(String),
      modifiedTime: expect.any(String),
      isRemote: false,
      alreadyInUse: false,
      workspacePath: `${setup.fixture.home}/session-state/${session.sessionId}`,
      summary: "metadata",
      workingDirectory: setup.fixture.cwd,
      currentMode: "interactive",
      selectedModel: MODEL.slice(MODEL.indexOf(":") + 1),
      sessionLimits: null,
    });
    expect(await session.rpc.metadata.isProcessing()).toEqual({ processing: false });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    setup.fixture.model.enqueue({ text: ["one", "two"], pause: { afterEvents: 1, until: gate } });
    const streaming = new Promise<void>((resolve) => {
      const off = session.on((event) => {
        if (event.type === "assistant.turn_start") {
          off();
          resolve();
        }
      });
    });
    const done = session.sendAndWait({ prompt: "slow" });
    await streaming;
    expect(await session.rpc.metadata.isProcessing()).toEqual({ processing: true });
    release();
    await done;
    expect(await session.rpc.metadata.isProcessing()).toEqual({ processing: false });
    await session.disconnect();
  });
});
