import { beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, type PermissionRequest, type TurnloopClient } from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, recordEvents, requestMessages } from "./support.js";

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/**
 * The app's own side of a turn through the SDK: its custom tools (run in parallel, a throw
 * becoming an error result), its permission handler's answers, and an abort while a tool runs
 * (sdk.test.ts: the turn's events, sends, queues, autopilot and resume).
 */
describe("the SDK against the built server (stdio)", () => {
  test("custom tools: parallel calls each answered, a throwing handler becomes an error result", async () => {
    const started: string[] = [];
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lookup = (name: string, answer: string) =>
      defineTool(name, {
        description: `Look up a ${name}`,
        parameters: z.object({ query: z.string() }),
        readOnly: true,
        handler: async ({ query }) => {
          started.push(name);
          if (started.length === 2) {
            release();
          }
          await bothStarted; // resolves only when both calls run at the same time
          return `${answer} (${query})`;
        },
      });
    const broken = defineTool("broken", {
      parameters: z.object({}),
      readOnly: true,
      handler: () => {
        throw new Error("the service is down");
      },
    });
    // Copilot's wording for a handler that threw: the model does not read the exception's text
    // (it is not the tool's output); the app does, in the completion's error.
    const BROKEN =
      "Failed to execute `broken` tool with arguments: {} due to error: Error: Tool execution failed";
    const session = await client.createSession({
      tools: [lookup("lookup_city", "Paris"), lookup("lookup_country", "France"), broken],
    });
    const events = recordEvents(session);
    fixture.model.enqueue(
      callingTools(
        ["call_city", "lookup_city", { query: "capital" }],
        ["call_country", "lookup_country", { query: "home" }],
        ["call_broken", "broken", {}],
      ),
      { text: "Paris, France." },
    );
    const reply = await session.sendAndWait({ prompt: "Where?" }, 10_000);
    expect(reply?.data.content).toBe("Paris, France.");
    const completions = events.flatMap((event) =>
      event.type === "tool.execution_complete" ? [event.data] : [],
    );
    expect(completions.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId))).toEqual([
      {
        toolCallId: "call_broken",
        toolName: "broken",
        success: false,
        result: { content: BROKEN },
        error: { message: "the service is down", code: "failed" },
      },
      {
        toolCallId: "call_city",
        toolName: "lookup_city",
        success: true,
        result: { content: "Paris (capital)" },
      },
      {
        toolCallId: "call_country",
        toolName: "lookup_country",
        success: true,
        result: { content: "France (home)" },
      },
    ]);
    const external = events.filter((event) => event.type.startsWith("external_tool."));
    expect(external.map((event) => event.type).sort()).toEqual([
      "external_tool.completed",
      "external_tool.completed",
      "external_tool.completed",
      "external_tool.requested",
      "external_tool.requested",
      "external_tool.requested",
    ]);
    const toolMessages = requestMessages(fixture.model, -1).filter((m) => m.role === "tool");
    expect(toolMessages.map((message) => [message.tool_call_id, message.content])).toEqual([
      ["call_city", "Paris (capital)"],
      ["call_country", "France (home)"],
      ["call_broken", BROKEN],
    ]);
  });

  test("permission handler: allow, then reject with feedback (the prompt ends there, as with Copilot); without a handler the default policy denies", async () => {
    const asked: PermissionRequest[] = [];
    const session = await client.createSession({
      onPermissionRequest: (request) => {
        asked.push(request);
        return asked.length === 1
          ? { kind: "approve-once" }
          : { kind: "reject", feedback: "not now" };
      },
    });
    const events = recordEvents(session);
    fixture.model.enqueue(
      callingTools(["call_a", "bash", { command: "echo allowed" }]),
      callingTools(["call_b", "bash", { command: "echo denied" }]),
    );
    const requestsBefore = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "run two commands" });
    // The rejected call ends the prompt: two model requests, no third one after the rejection.
    expect(fixture.model.requests.length - requestsBefore).toBe(2);
    expect(events.at(-1)).toMatchObject({
      type: "session.idle",
      data: { stopReason: "end_turn", mode: "interactive" },
    });
    expect(
      asked.map((request) => [request.kind, request.fullCommandText, request.toolCallId]),
    ).toEqual([
      ["shell", "echo allowed", "call_a"],
      ["shell", "echo denied", "call_b"],
    ]);
    const decisions = events.flatMap((event) =>
      event.type === "permission.completed" ? [[event.data.toolCallId, event.data.decision]] : [],
    );
    expect(decisions).toEqual([
      ["call_a", "allowed"],
      ["call_b", "denied"],
    ]);
    const results = events.flatMap((event) =>
      event.type === "tool.execution_complete" ? [event.data.result.content] : [],
    );
    expect(results[0]).toContain("allowed");
    expect(results[1]).toBe("Permission denied for 'bash': not now");

    const unguarded = await client.createSession();
    const unguardedEvents = recordEvents(unguarded);
    fixture.model.enqueue(callingTools(["call_c", "bash", { command: "echo x" }]), { text: "no" });
    await unguarded.sendAndWait({ prompt: "run" });
    expect(unguardedEvents.some((event) => event.type === "permission.requested")).toBe(false);
    expect(
      unguardedEvents.flatMap((event) =>
        event.type === "tool.execution_complete" ? [event.data.result.content] : [],
      ),
    ).toEqual([
      "Permission denied for 'bash': it needs approval and the app registered no permission handler (onPermissionRequest)",
    ]);
  });

  test("abort mid-tool: the command is killed, the call gets its result, idle says cancelled and aborted", async () => {
    const session = await client.createSession({ allowAllTools: true });
    const events = recordEvents(session);
    // The wire's own event is typed for a handler of its type (WireEventOf<"assistant.idle">).
    const assistantIdles: Array<boolean | undefined> = [];
    session.on("assistant.idle", (event) => assistantIdles.push(event.data.aborted));
    fixture.model.enqueue(
      callingTools(["call_sleep", "bash", { command: "echo started; sleep 30" }]),
    );
    // The command runs once its first output arrives.
    const started = nextEvent(session, (event) => event.type === "tool.execution_partial_result");
    await session.send({ prompt: "sleep" });
    await started;
    await session.abort();
    // abort resolves once the session is idle: its idle has arrived already.
    // The Copilot SDK's IdleData: `aborted` is true after an abort.
    expect(events.at(-1)).toMatchObject({ type: "session.idle" });
    expect(events.at(-1)?.data).toEqual({
      stopReason: "cancelled",
      aborted: true,
      mode: "interactive",
    });
    expect(events.map((event) => event.type).slice(-6)).toEqual([
      "tool.execution_partial_result",
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
      "assistant.idle",
      "session.idle",
    ]);
    expect(events.at(-2)?.data).toEqual({ aborted: true });
    expect(assistantIdles).toEqual([true]);
    expect(events.at(-4)).toMatchObject({
      type: "assistant.turn_end",
      data: { status: "cancelled", finishReason: "tool-calls" },
    });
    expect(events.at(-5)).toMatchObject({
      data: { toolCallId: "call_sleep", success: false, error: { code: "cancelled" } },
    });
  });
});
