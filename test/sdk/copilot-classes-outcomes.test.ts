import { join } from "node:path";
import {
  approveAll,
  CopilotClient,
  defineTool,
  type PermissionRequest,
  RuntimeConnection,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { gate } from "../support/gate.js";
import { callingTools } from "../support/replies.js";
import { copilotClassesFile, record } from "./copilot-classes-support.js";

/**
 * What an app written for the official `@github/copilot-sdk` sees when turnloop is its CLI, class
 * by class (issue 16), once a session runs: tool outcomes and the permission answers behind them,
 * the events it emits, and the RPC methods the SDK core calls (the session's setup is in
 * copilot-classes.test.ts).
 */

const { fixture, client, requestsSince, provider } = copilotClassesFile();

/** A client without `--yolo`, so that calls that need approval ask the app. */
async function askingClient(): Promise<CopilotClient> {
  const asking = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env }),
    workingDirectory: fixture.cwd,
  });
  await asking.start();
  return asking;
}

describe("tool outcomes", () => {
  test("a rejected call ends the prompt; denied and rejected results are reported as such; parallel app tools ask at once", async () => {
    const asking = await askingClient();
    try {
      const session = await asking.createSession({
        model: "claude-sonnet-4.5",
        provider: provider(),
        onPermissionRequest: () => ({ kind: "reject", feedback: "no" }),
      });
      const events = record(session);
      let from = fixture.model.requests.length;
      fixture.model.enqueue(callingTools(["call_rm", "bash", { command: "rm -rf x" }]));
      await session.sendAndWait({ prompt: "delete x" });
      expect(requestsSince(from)).toHaveLength(1);
      const completed = events.find((event) => event.type === "tool.execution_complete");
      expect(completed?.data).toMatchObject({ success: false, error: { code: "rejected" } });
      await session.disconnect();

      // An app tool's resultType: rejected ends the prompt, denied goes back to the model.
      const resultTool = (name: string, resultType: string) =>
        defineTool(name, {
          parameters: { type: "object" },
          skipPermission: true,
          handler: () => ({ textResultForLlm: `${name} said ${resultType}`, resultType }),
        });
      const typed = await asking.createSession({
        model: "claude-sonnet-4.5",
        provider: provider(),
        onPermissionRequest: approveAll,
        tools: [resultTool("deploy_service", "rejected"), resultTool("access_secret", "denied")],
      });
      const typedEvents = record(typed);
      from = fixture.model.requests.length;
      fixture.model.enqueue(
        { toolCalls: [{ id: "call_deploy", name: "deploy_service", arguments: "{}" }] },
        { toolCalls: [{ id: "call_secret", name: "access_secret", arguments: "{}" }] },
        { text: "access denied" },
      );
      await typed.sendAndWait({ prompt: "deploy" });
      expect(requestsSince(from)).toHaveLength(1);
      await typed.sendAndWait({ prompt: "read the secret" });
      expect(requestsSince(from)).toHaveLength(3);
      expect(
        typedEvents.flatMap((event) =>
          event.type === "tool.execution_complete"
            ? [[event.data.toolCallId, (event.data as { error?: { code?: string } }).error?.code]]
            : [],
        ),
      ).toEqual([
        ["call_deploy", "rejected"],
        ["call_secret", "denied"],
      ]);
      await typed.disconnect();

      // Two app tools in one reply: both permission prompts arrive before either is answered.
      const asked: PermissionRequest[] = [];
      let release: () => void = () => undefined;
      const bothAsked = new Promise<void>((resolve) => {
        release = resolve;
      });
      const lookup = (name: string) =>
        defineTool(name, { parameters: { type: "object" }, handler: () => name.toUpperCase() });
      const parallel = await asking.createSession({
        model: "claude-sonnet-4.5",
        provider: provider(),
        tools: [lookup("lookup_city"), lookup("lookup_country")],
        onPermissionRequest: async (request) => {
          asked.push(request);
          if (asked.length === 2) {
            release();
          }
          await bothAsked;
          return { kind: "approve-once" };
        },
      });
      fixture.model.enqueue(
        {
          toolCalls: [
            { id: "call_city", name: "lookup_city", arguments: "{}" },
            { id: "call_country", name: "lookup_country", arguments: "{}" },
          ],
        },
        { text: "both" },
      );
      const reply = await parallel.sendAndWait({ prompt: "look both up" }, 10_000);
      expect(reply?.data.content).toBe("both");
      expect(asked.map((request) => request.toolCallId).sort()).toEqual([
        "call_city",
        "call_country",
      ]);
      await parallel.disconnect();
    } finally {
      await asking.stop();
    }
  });
});

describe("events", () => {
  test("session.usage_info after each model call, queue changes as pending_messages.modified", async () => {
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const events = record(session);
    // The first reply is held until the second send is answered, so that one queues.
    const queued = gate();
    fixture.model.enqueue(
      { text: "slow", pause: { afterEvents: 0, until: queued.opened } },
      { text: "queued" },
    );
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    await session.send({ prompt: "first" });
    await session.send({ prompt: "second" });
    queued.open();
    await idle;
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "session.usage_info")).toHaveLength(2);
    expect(types.filter((type) => type === "pending_messages.modified")).toHaveLength(2);
    const info = events.find((event) => event.type === "session.usage_info");
    const [model] = await client().listModels();
    expect(info?.data).toMatchObject({
      tokenLimit: model?.capabilities.limits.max_context_window_tokens,
      messagesLength: 2,
    });
    await session.disconnect();
  });
});

describe("RPC methods the SDK core calls", () => {
  test("metadata by id, delete by id, session.log, tools.list, name, usage, plan, workspace; out-of-scope methods say so", async () => {
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const events = record(session);
    fixture.model.enqueue({ text: "ok" });
    await session.sendAndWait({ prompt: "remember me" });
    const metadata = await client().getSessionMetadata(session.sessionId);
    expect(metadata).toMatchObject({ sessionId: session.sessionId, summary: "remember me" });
    expect(await client().getSessionMetadata("no-such-session")).toBeUndefined();

    await session.log("an info");
    await session.log("a warning", { level: "warning" });
    await session.log("an error", { level: "error" });
    const passing = await session.rpc.log({ message: "a passing note", ephemeral: true });
    const logged = (list: typeof events) =>
      list.flatMap((event) =>
        event.type === "session.info" ||
        event.type === "session.warning" ||
        event.type === "session.error"
          ? [[event.type, event.data.message, event.ephemeral === true]]
          : [],
      );
    expect(logged(events)).toEqual([
      ["session.info", "an info", false],
      ["session.warning", "a warning", false],
      ["session.error", "an error", false],
      ["session.info", "a passing note", true],
    ]);
    expect(events.find((event) => event.id === passing.eventId)?.data).toEqual({
      infoType: "notification",
      message: "a passing note",
    });
    // The ephemeral one is not in the log.
    expect(logged(await session.getEvents())).toEqual([
      ["session.info", "an info", false],
      ["session.warning", "a warning", false],
      ["session.error", "an error", false],
    ]);
    const tools = await client().rpc.tools.list({});
    expect(tools.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["bash", "view", "edit", "create", "grep", "glob"]),
    );
    await session.rpc.name.set({ name: "my session" });
    expect(await session.rpc.name.get()).toMatchObject({ name: "my session" });
    expect(await session.rpc.usage.getMetrics()).toMatchObject({
      inputTokens: 10,
      outputTokens: 5,
      requests: 1,
    });
    expect(await session.rpc.plan.read()).toMatchObject({ exists: false });
    expect(await session.rpc.workspaces.getWorkspace()).toMatchObject({
      workspace: { path: join(fixture.home, "session-state", session.sessionId) },
    });
    await expect(session.rpc.fleet.start({})).rejects.toThrow(
      /session\.fleet\.start is not supported by turnloop: fleet and remote control are out of scope/,
    );
    await expect(client().rpc.account.getQuota({})).rejects.toThrow(/GitHub authentication/);
    await session.disconnect();
    await client().deleteSession(session.sessionId);
    expect(await client().getSessionMetadata(session.sessionId)).toBeUndefined();
  });
});
