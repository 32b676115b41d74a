import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { stdioEntry } from "../support/mcp/servers.js";
import { recordEvents, useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, Copilot's MCP tool naming on the SDK face: a server's tool is offered to the model as
 * `<server>-<tool>` (the Copilot SDK's snapshot
 * `mcp_and_agents/should_pass_literal_env_values_to_mcp_server_subprocess`: `env-echo-get_env`),
 * and `tool.execution_start` names the server and the server's own tool name. Driven through the
 * official `@github/copilot-sdk` over the built CLI. (The other faces keep `<server>__<tool>`:
 * test/acp and test/cli.)
 */

const setup = useCopilotClient();

describe("MCP tool names", () => {
  test("<server>-<tool> to the model and in tool.execution_start, with the server and its tool's own name", async () => {
    const { client, fixture } = setup;
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      mcpServers: { "env-echo": { type: "local", ...stdioEntry(), tools: ["echo"] } },
    });
    const events = recordEvents(session);
    fixture.model.enqueue(
      { toolCalls: [{ id: "call_e", name: "env-echo-echo", arguments: '{"text":"hunter2"}' }] },
      { text: "hunter2" },
    );
    const first = fixture.model.requests.length;
    const reply = await session.sendAndWait({ prompt: "Use the env-echo/echo tool." });
    await session.disconnect();

    expect(reply?.data.content).toBe("hunter2");
    const offered = (chatBody(fixture.model.requests.at(first)).tools ?? []).map(
      (tool) => tool.function.name,
    );
    // After the built-in tools, the server's one tool (its config offers only `echo`).
    expect(offered.slice(-1)).toEqual(["env-echo-echo"]);
    expect(offered.filter((name) => name.includes("__"))).toEqual([]);
    const calls = events.flatMap((event) =>
      event.type === "tool.execution_start" || event.type === "tool.execution_complete"
        ? [[event.type, event.data]]
        : [],
    );
    expect(calls).toEqual([
      [
        "tool.execution_start",
        {
          toolCallId: "call_e",
          toolName: "env-echo-echo",
          arguments: { text: "hunter2" },
          mcpServerName: "env-echo",
          mcpToolName: "echo",
        },
      ],
      [
        "tool.execution_complete",
        expect.objectContaining({
          toolCallId: "call_e",
          success: true,
          result: expect.objectContaining({ content: "echo: hunter2" }),
        }),
      ],
    ]);
    const tool = chatBody(fixture.model.requests.at(first + 1)).messages.at(-1);
    expect(tool).toMatchObject({ role: "tool", content: "echo: hunter2" });
  });
});
