import { describe, expect } from "vitest";
import {
  type PermissionReply,
  type PermissionRequest,
  parseRules,
} from "../../src/permissions/permission-decision.js";
import { createPermissionGate } from "../../src/permissions/permission-gate.js";
import { startMcpServers } from "../../src/session/mcp-servers.js";
import { type CliFixtures, test } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";
import { stdioServer } from "../support/mcp/servers.js";

/** A session with the test server `t`, behind the real gate with these rules and answers. */
async function gated(
  openHarness: CliFixtures["openHarness"],
  rules: { allow?: string[]; deny?: string[] },
  answers: PermissionReply[],
) {
  const target = await openHarness();
  const asked: PermissionRequest[] = [];
  const session = target.session;
  target.settings.authorize = createPermissionGate({
    cwd: target.cwd,
    policy: () => ({
      allowAllTools: false,
      allow: [...parseRules(rules.allow ?? []), ...session.grants.allow],
      deny: [...parseRules(rules.deny ?? []), ...session.grants.deny],
      folders: [],
    }),
    ask: async (request) => {
      asked.push(request);
      return answers.shift() ?? { decision: "deny", scope: "once", reason: "no more answers" };
    },
    emit: (event) => void session.emit(event),
  });
  await startMcpServers(session, { t: stdioServer() }, { env: process.env, startupWaitMs: 10_000 });
  return { harness: target, asked };
}

const echo = (id: string, name = "t__echo") => ({
  toolCalls: [{ id, name, arguments: name === "t__echo" ? '{"text":"x"}' : "{}" }],
});

function outcomes(target: Harness) {
  return target.events
    .filter((event) => event.type === "tool.execution_complete")
    .map((event) => [event.data.toolCallId, event.data.success, event.data.result.content]);
}

function permissionEvents(target: Harness) {
  return target.events
    .filter(
      (event) => event.type === "permission.requested" || event.type === "permission.completed",
    )
    .map((event) => {
      const { requestId: _id, ...data } = event.data;
      return { type: event.type, data };
    });
}

describe("MCP tools behind the permission gate", () => {
  test("--allow-tool 'mcp(t__*)' runs the server's tools without asking", async ({
    openHarness,
  }) => {
    const { harness, asked } = await gated(openHarness, { allow: ["mcp(t__*)"] }, []);
    harness.server.enqueue(echo("call_1"), { text: "ok" });
    await harness.prompt("go");
    expect(asked).toEqual([]);
    expect(outcomes(harness)).toEqual([["call_1", true, "echo: x"]]);
  });

  test("--deny-tool 'mcp(t)' denies every tool of the server, even with --allow-tool", async ({
    openHarness,
  }) => {
    const { harness, asked } = await gated(openHarness, { allow: ["mcp"], deny: ["mcp(t)"] }, []);
    harness.server.enqueue(echo("call_1"), { text: "ok" });
    await harness.prompt("go");
    expect(asked).toEqual([]);
    expect(outcomes(harness)).toEqual([
      ["call_1", false, `Permission denied for 't__echo': denied by the rule "mcp(t)"`],
    ]);
  });

  for (const rule of ["mcp__t__echo", "mcp__t"]) {
    test(`--deny-tool '${rule}' (Claude Code's name) denies the tool, even with --allow-tool`, async ({
      openHarness,
    }) => {
      const { harness, asked } = await gated(openHarness, { allow: ["mcp"], deny: [rule] }, []);
      harness.server.enqueue(echo("call_1"), { text: "ok" });
      await harness.prompt("go");
      expect(asked).toEqual([]);
      expect(outcomes(harness)).toEqual([
        ["call_1", false, `Permission denied for 't__echo': denied by the rule "${rule}"`],
      ]);
    });
  }

  test(`asked with kind mcp; 'always' records mcp("t":"echo") and stops asking for that tool only`, async ({
    openHarness,
  }) => {
    const { harness, asked } = await gated(openHarness, {}, [
      { decision: "allow", scope: "session" },
      { decision: "deny", scope: "once", reason: "not that one" },
    ]);
    harness.server.enqueue(echo("call_1"), echo("call_2"), echo("call_3", "t__image"), {
      text: "ok",
    });
    await harness.prompt("go");
    expect(asked.map((request) => [request.toolName, request.title, request.alwaysRule])).toEqual([
      ["t__echo", "t: echo", 'mcp("t":"echo")'],
      ["t__image", "t: image", 'mcp("t":"image")'],
    ]);
    expect(asked[0]?.mcp).toEqual({ serverName: "t", toolName: "echo", qualifiedName: "t__echo" });
    expect(permissionEvents(harness)).toEqual([
      {
        type: "permission.requested",
        data: { toolCallId: "call_1", toolName: "t__echo", kind: "mcp", title: "t: echo" },
      },
      {
        type: "permission.completed",
        data: {
          toolCallId: "call_1",
          decision: "allowed",
          scope: "session",
          rule: 'mcp("t":"echo")',
        },
      },
      {
        type: "permission.requested",
        data: { toolCallId: "call_3", toolName: "t__image", kind: "mcp", title: "t: image" },
      },
      {
        type: "permission.completed",
        data: { toolCallId: "call_3", decision: "denied", scope: "once", reason: "not that one" },
      },
    ]);
    expect(outcomes(harness)).toEqual([
      ["call_1", true, "echo: x"],
      ["call_2", true, "echo: x"],
      ["call_3", false, "Permission denied for 't__image': not that one"],
    ]);
  });
});
