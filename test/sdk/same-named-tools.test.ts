import {
  approveAll,
  type CopilotSession,
  defineTool,
  type SessionEvent,
} from "@github/copilot-sdk";
import { afterAll, beforeAll, expect, test } from "vitest";
import { z } from "zod";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, nextEvent, requestMessages } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * Two official `@github/copilot-sdk` apps on one `turnloop --headless --port` session that both
 * register a tool of the same name (trial 40 F4): a call runs once, in the app that registered
 * the name first; when that app goes while the call waits, the next app that registered it runs it.
 */

const fixture = fixtureForFile();
let server: TcpServer;

beforeAll(async () => {
  server = await startTcpServer(fixture);
});
afterAll(async () => {
  await server.stop();
});

/** `lookup_ticket`, recording `by` in `ranBy` when it runs; `answer` gives its result. */
function ticketTool(ranBy: string[], by: string, answer: (code: string) => Promise<string>) {
  return defineTool("lookup_ticket", {
    description: "Looks a ticket up",
    parameters: z.object({ code: z.string() }),
    skipPermission: true,
    handler: ({ code }) => {
      ranBy.push(by);
      return answer(code);
    },
  });
}

/** The types of the `external_tool.*` events `session` receives from now on. */
function toolEventsOf(session: CopilotSession): string[] {
  const types: string[] = [];
  session.on((event: SessionEvent) => {
    if (event.type.startsWith("external_tool.")) {
      types.push(event.type);
    }
  });
  return types;
}

/** The `tool` messages of model request `index` as `{tool_call_id, content}`. */
function toolMessages(index: number) {
  return requestMessages(fixture.model, index)
    .filter((message) => message.role === "tool")
    .map(({ tool_call_id, content }) => ({ tool_call_id, content }));
}

test("a call of a tool two apps registered runs once, in the app that registered it first", async () => {
  const ranBy: string[] = [];
  const first = await server.copilotClient();
  const second = await server.copilotClient();
  const one = await first.createSession({
    onPermissionRequest: approveAll,
    tools: [ticketTool(ranBy, "first", async (code) => `first found ${code}`)],
  });
  const two = await second.resumeSession(one.sessionId, {
    onPermissionRequest: approveAll,
    tools: [ticketTool(ranBy, "second", async (code) => `second found ${code}`)],
  });
  const oneSaw = toolEventsOf(one);
  const twoSaw = toolEventsOf(two);
  fixture.model.enqueue(callingTools(["call_t", "lookup_ticket", { code: "T-7" }]), {
    text: "Found it.",
  });
  const from = fixture.model.requests.length;
  const idle = nextEvent(one, (event) => event.type === "session.idle");
  const reply = await two.sendAndWait({ prompt: "look up T-7" });
  await idle;

  expect(reply?.data.content).toBe("Found it.");
  expect(ranBy).toEqual(["first"]);
  expect(toolMessages(from + 1)).toEqual([{ tool_call_id: "call_t", content: "first found T-7" }]);
  expect(oneSaw).toEqual(["external_tool.requested", "external_tool.completed"]);
  // The second app is not asked to run it; it sees the call end.
  expect(twoSaw).toEqual(["external_tool.completed"]);
  await first.forceStop();
  await second.forceStop();
});

test("when the app running a call goes before answering, the next app that registered the tool runs it", async () => {
  const ranBy: string[] = [];
  const first = await server.copilotClient();
  const second = await server.copilotClient();
  const one = await first.createSession({
    onPermissionRequest: approveAll,
    tools: [ticketTool(ranBy, "first", () => new Promise<string>(() => undefined))],
  });
  const two = await second.resumeSession(one.sessionId, {
    onPermissionRequest: approveAll,
    tools: [ticketTool(ranBy, "second", async (code) => `second found ${code}`)],
  });
  const asked = nextEvent(one, (event) => event.type === "external_tool.requested");
  fixture.model.enqueue(callingTools(["call_h", "lookup_ticket", { code: "T-8" }]), {
    text: "Found it after all.",
  });
  const from = fixture.model.requests.length;
  const reply = two.sendAndWait({ prompt: "look up T-8" });
  await asked;
  await first.forceStop();

  expect((await reply)?.data.content).toBe("Found it after all.");
  expect(ranBy).toEqual(["first", "second"]);
  expect(toolMessages(from + 1)).toEqual([{ tool_call_id: "call_h", content: "second found T-8" }]);
  await second.forceStop();
});
