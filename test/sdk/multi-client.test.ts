import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  approveAll,
  type CopilotClient,
  type CopilotSession,
  defineTool,
  type SessionEvent,
} from "@github/copilot-sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, normalise, requestMessages } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * Issue 25, several clients on one session: two official `@github/copilot-sdk` clients connected
 * to one `turnloop --headless --port` process, the second resuming the first's session (the
 * Copilot SDK's multi-client broadcast pattern).
 */

const fixture = fixtureForFile();
let server: TcpServer;
let first: CopilotClient;
let second: CopilotClient;

beforeAll(async () => {
  server = await startTcpServer(fixture);
  first = await server.copilotClient();
  second = await server.copilotClient();
});
afterAll(async () => {
  await server.stop();
});

/** Records what each session sees; `idle` resolves on each one's next `session.idle`. */
function watch(...sessions: CopilotSession[]) {
  const seen = sessions.map(() => [] as SessionEvent[]);
  for (const [index, session] of sessions.entries()) {
    session.on((event) => seen[index]?.push(event));
  }
  const idle = sessions.map((session) =>
    nextEvent(session, (event) => event.type === "session.idle"),
  );
  return { seen, idle: () => Promise.all(idle) };
}

/** A custom tool that records who ran it. */
function lookupTool(name: string, ranBy: string[], by: string) {
  return defineTool(name, {
    description: `Looks up ${name}`,
    parameters: z.object({ code: z.string() }),
    skipPermission: true,
    handler: ({ code }) => {
      ranBy.push(`${by}:${name}`);
      return `${name.toUpperCase()}_${code}`;
    },
  });
}

/** The `tool` messages of model request `index` as `{tool_call_id, content}`. */
function toolMessages(index: number) {
  return requestMessages(fixture.model, index)
    .filter((message) => message.role === "tool")
    .map(({ tool_call_id, content }) => ({ tool_call_id, content }));
}

describe("several clients on one session", () => {
  test("the second client's tools are offered beside the first's, each run by the app that registered it; both see every event", async () => {
    const ranBy: string[] = [];
    const one = await first.createSession({
      onPermissionRequest: approveAll,
      tools: [lookupTool("city_lookup", ranBy, "first")],
    });
    const two = await second.resumeSession(one.sessionId, {
      onPermissionRequest: approveAll,
      tools: [lookupTool("currency_lookup", ranBy, "second")],
    });
    const from = fixture.model.requests.length;
    fixture.model.enqueue(
      callingTools(
        ["call_city", "city_lookup", { code: "US" }],
        ["call_currency", "currency_lookup", { code: "US" }],
      ),
      { text: "CITY_LOOKUP_US and CURRENCY_LOOKUP_US" },
    );
    const { seen, idle } = watch(one, two);
    const reply = await one.sendAndWait({ prompt: "look both up" });
    await idle();

    expect(reply?.data.content).toBe("CITY_LOOKUP_US and CURRENCY_LOOKUP_US");
    const body = fixture.model.requests[from]?.body as {
      tools?: Array<{ function: { name: string } }>;
    };
    const offered = (body.tools ?? []).map((tool) => tool.function.name);
    expect(offered.filter((name) => name.endsWith("_lookup")).sort()).toEqual([
      "city_lookup",
      "currency_lookup",
    ]);
    expect(ranBy.sort()).toEqual(["first:city_lookup", "second:currency_lookup"]);
    expect(toolMessages(from + 1)).toEqual([
      { tool_call_id: "call_city", content: "CITY_LOOKUP_US" },
      { tool_call_id: "call_currency", content: "CURRENCY_LOOKUP_US" },
    ]);
    const [firstSaw = [], secondSaw = []] = seen;
    expect(normalise(secondSaw, fixture)).toEqual(normalise(firstSaw, fixture));
    // The two calls run concurrently: each is requested, then completed, once.
    const perCall = new Map<string, string[]>();
    for (const event of firstSaw) {
      if (event.type === "external_tool.requested" || event.type === "external_tool.completed") {
        const { toolCallId } = event.data as { toolCallId: string };
        perCall.set(toolCallId, [...(perCall.get(toolCallId) ?? []), event.type]);
      }
    }
    expect(Object.fromEntries(perCall)).toEqual({
      call_city: ["external_tool.requested", "external_tool.completed"],
      call_currency: ["external_tool.requested", "external_tool.completed"],
    });
    expect(firstSaw.at(-1)?.type).toBe("session.idle");
    await two.disconnect();
    await one.disconnect();
  });

  test("a permission request reaches the client with a handler; one that never answers does not hang the turn, and both see the decision", async () => {
    const asked: string[] = [];
    // The first app has no handler; the second's approves.
    const one = await first.createSession({});
    const two = await second.resumeSession(one.sessionId, {
      onPermissionRequest: (request) => {
        asked.push(request.kind);
        return { kind: "approve-once" };
      },
    });
    fixture.model.enqueue(
      callingTools(["call_w", "create", { path: "hello.txt", file_text: "hi" }]),
      { text: "Created." },
    );
    const { seen, idle } = watch(one, two);
    const reply = await one.sendAndWait({ prompt: "create hello.txt" });
    await idle();

    expect(reply?.data.content).toBe("Created.");
    expect(asked).toEqual(["write"]);
    expect(await readFile(join(fixture.cwd, "hello.txt"), "utf8")).toBe("hi");
    const [firstSaw = [], secondSaw = []] = seen;
    expect(normalise(secondSaw, fixture)).toEqual(normalise(firstSaw, fixture));
    const decisions = firstSaw.flatMap((event) =>
      event.type === "permission.completed" ? [event.data.result.kind] : [],
    );
    expect(decisions).toEqual(["approved"]);

    // Now a never-answering handler beside one that rejects: the rejection counts.
    await two.disconnect();
    await writeFile(join(fixture.cwd, "protected.txt"), "protected content");
    const three = await second.resumeSession(one.sessionId, {
      onPermissionRequest: () => new Promise(() => undefined),
    });
    const four = await first.resumeSession(one.sessionId, {
      onPermissionRequest: () => ({ kind: "denied-interactively-by-user" }),
    });
    fixture.model.enqueue({
      toolCalls: [
        {
          id: "call_e",
          name: "edit",
          arguments: '{"path":"protected.txt","old_str":"protected","new_str":"hacked"}',
        },
      ],
    });
    const denied = watch(three, four);
    const requestsBefore = fixture.model.requests.length;
    await four.sendAndWait({ prompt: "edit protected.txt" });
    await denied.idle();

    // As with Copilot, the user's rejection ends the prompt: the model is not asked again.
    expect(fixture.model.requests.length).toBe(requestsBefore + 1);
    expect(await readFile(join(fixture.cwd, "protected.txt"), "utf8")).toBe("protected content");
    const [threeSaw = [], fourSaw = []] = denied.seen;
    expect(normalise(threeSaw, fixture)).toEqual(normalise(fourSaw, fixture));
    expect(
      fourSaw.flatMap((event) =>
        event.type === "permission.completed" ? [event.data.result.kind] : [],
      ),
    ).toEqual(["denied-interactively-by-user"]);
    await three.disconnect();
    await four.disconnect();
  });

  test("a client that disconnects takes its tools with it; the session goes on for the other", async () => {
    const ranBy: string[] = [];
    const one = await first.createSession({
      onPermissionRequest: approveAll,
      tools: [lookupTool("stable_tool", ranBy, "first")],
    });
    const leaving = await server.copilotClient();
    await leaving.resumeSession(one.sessionId, {
      onPermissionRequest: approveAll,
      tools: [lookupTool("ephemeral_tool", ranBy, "leaving")],
    });
    fixture.model.setResponder(() => ({ text: "ok" }));
    const offered = async () => {
      const from = fixture.model.requests.length;
      await one.sendAndWait({ prompt: "which tools?" });
      const body = fixture.model.requests[from]?.body as {
        tools?: Array<{ function: { name: string } }>;
      };
      return (body.tools ?? [])
        .map((tool) => tool.function.name)
        .filter((name) => name.endsWith("_tool"));
    };
    expect((await offered()).sort()).toEqual(["ephemeral_tool", "stable_tool"]);
    await leaving.forceStop();
    // Once the server has seen the socket close, a prompt offers only the first app's tool.
    await expect.poll(offered, { timeout: 30_000 }).toEqual(["stable_tool"]);
    fixture.model.setResponder(undefined);
    expect(ranBy).toEqual([]);
    await one.disconnect();
  });

  test("an app that disconnects while its tool runs or its handler is asked holds nothing up", async () => {
    const one = await first.createSession({});
    const leaving = await server.copilotClient();
    const stuck = defineTool("stuck_tool", {
      description: "Never answers",
      parameters: z.object({}),
      skipPermission: true,
      handler: () => new Promise<string>(() => undefined),
    });
    const resumed = await leaving.resumeSession(one.sessionId, {
      onPermissionRequest: () => new Promise(() => undefined),
      tools: [stuck],
    });
    const asked = nextEvent(resumed, (event) => event.type === "external_tool.requested");
    fixture.model.enqueue(
      { toolCalls: [{ id: "call_stuck", name: "stuck_tool", arguments: "{}" }] },
      { text: "The tool is gone." },
    );
    const from = fixture.model.requests.length;
    const { seen, idle } = watch(one);
    const reply = one.sendAndWait({ prompt: "use the stuck tool" });
    await asked;
    await leaving.forceStop();
    expect((await reply)?.data.content).toBe("The tool is gone.");
    await idle();
    expect(toolMessages(from + 1)).toEqual([
      {
        tool_call_id: "call_stuck",
        content:
          "Failed: the app that runs this tool disconnected before answering; it is no longer available.",
      },
    ]);
    const [oneSaw = []] = seen;
    expect(
      oneSaw.flatMap((event) =>
        // The SDK's type has no `status`; turnloop's event carries it.
        event.type === "external_tool.completed"
          ? [(event.data as { status?: string }).status]
          : [],
      ),
    ).toEqual(["failed"]);

    // The only app with a permission handler leaves while it is being asked.
    const asker = await server.copilotClient();
    const handler = await asker.resumeSession(one.sessionId, {
      onPermissionRequest: () => new Promise(() => undefined),
    });
    const question = nextEvent(handler, (event) => event.type === "permission.requested");
    fixture.model.enqueue(
      callingTools(["call_c", "create", { path: "late.txt", file_text: "x" }]),
      { text: "Nobody could approve it." },
    );
    const next = fixture.model.requests.length;
    const second = one.sendAndWait({ prompt: "create late.txt" });
    await question;
    await asker.forceStop();
    expect((await second)?.data.content).toBe("Nobody could approve it.");
    expect(toolMessages(next + 1).slice(1)).toEqual([
      {
        tool_call_id: "call_c",
        content: "Permission denied and could not request permission from user",
      },
    ]);
    await one.disconnect();
  });

  test("session.destroy by one client leaves the session open for the other", async () => {
    const one = await first.createSession({ onPermissionRequest: approveAll });
    const two = await second.resumeSession(one.sessionId, { onPermissionRequest: approveAll });
    await two.disconnect();
    fixture.model.enqueue({ text: "still here" });
    const reply = await one.sendAndWait({ prompt: "are you there?" });
    expect(reply?.data.content).toBe("still here");
    const types = (await one.getEvents()).map((event) => event.type);
    expect(types.filter((type) => type === "user.message" || type === "assistant.message")).toEqual(
      ["user.message", "assistant.message"],
    );
    await one.disconnect();
  });
});
