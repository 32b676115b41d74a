import {
  approveAll,
  type CopilotClient,
  type CopilotSession,
  defineTool,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { stdioEntry } from "../support/mcp/servers.js";
import { useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, tool sets on the SDK face: the app's `availableTools` / `excludedTools` (bare names
 * and the SDK's `builtin:`, `custom:`, `mcp:` qualifiers) choose among every tool the model is
 * offered, MCP servers' tools included — also those a server adds while the session runs and
 * those of a server disabled and enabled again. The servers' configs offer all their tools
 * (`tools: ["*"]`), so only the app's filters limit them. Driven through the official
 * `@github/copilot-sdk` over the built CLI; the names are those of the model requests.
 */

const setup = useCopilotClient();

/** The test MCP server, all its tools offered by its config. */
const mcpServers = { files: { type: "local" as const, ...stdioEntry(), tools: ["*"] } };

/** Every tool of the test server, as Copilot names them on this face. */
const ALL_MCP = [
  "files-echo",
  "files-image",
  "files-fail",
  "files-crash",
  "files-hang",
  "files-grow",
  "files-big",
  "files-env",
  "files-resource",
];

/** The tool names of the model request `index` (from the fixture's recorded requests). */
function namesOf(client: { fixture: typeof setup.fixture }, index: number): string[] {
  return (chatBody(client.fixture.model.requests[index]).tools ?? []).map(
    (tool) => tool.function.name,
  );
}

/** The tool names of the first model request of one prompt. */
async function offeredNames(session: CopilotSession): Promise<string[]> {
  const from = setup.fixture.model.requests.length;
  setup.fixture.model.enqueue({ text: "ok" });
  await session.sendAndWait({ prompt: "list" });
  return namesOf(setup, from);
}

describe("tool filters over MCP tools", () => {
  test("excludedTools and availableTools by name and by qualifier choose among MCP, built-in and custom tools", async () => {
    const lookup = defineTool("lookup", { parameters: { type: "object" }, handler: () => "x" });
    const tools = [lookup];
    const builtins = ["view", "create", "edit", "grep", "glob", "bash", "update_plan"];
    const cases: Array<[string, Parameters<CopilotClient["createSession"]>[0], string[]]> = [
      ["no filter", { tools, mcpServers }, [...builtins, "lookup", ...ALL_MCP]],
      [
        "excludedTools naming MCP tools (bare and mcp:)",
        { tools, mcpServers, excludedTools: ["files-echo", "mcp:files-hang", "bash"] },
        [...builtins.filter((name) => name !== "bash"), "lookup", ...without(["echo", "hang"])],
      ],
      [
        "availableTools naming one MCP tool",
        { tools, mcpServers, availableTools: ["files-env"] },
        ["files-env"],
      ],
      [
        "builtin:* and custom:* leave the MCP tools out",
        { tools, mcpServers, availableTools: ["builtin:*", "custom:*"] },
        [...builtins, "lookup"],
      ],
      [
        "builtin:<name>, mcp:*, minus builtin:* and an MCP tool",
        {
          tools,
          mcpServers,
          availableTools: ["builtin:view", "mcp:*", "lookup"],
          excludedTools: ["custom:*", "mcp:files-big"],
        },
        ["view", ...without(["big"])],
      ],
      [
        "a qualifier names only its source",
        {
          tools,
          mcpServers,
          availableTools: ["builtin:files-echo", "custom:files-env", "mcp:view"],
        },
        [],
      ],
    ];
    const seen: Array<[string, string[]]> = [];
    for (const [name, config] of cases) {
      const session = await setup.client.createSession({
        onPermissionRequest: approveAll,
        ...config,
      });
      seen.push([name, await offeredNames(session)]);
      await session.disconnect();
    }
    expect(seen).toEqual(cases.map(([name, , expected]) => [name, expected]));
  });

  test("a tool a server adds while the session runs, and a server enabled again, pass the same filters", async () => {
    // `mcp:*` and an exclusion: the filters choose among the tools of each model request.
    const { client, fixture } = setup;
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      mcpServers,
      availableTools: ["mcp:*"],
      excludedTools: ["files-echo"],
    });
    fixture.model.enqueue(
      { toolCalls: [{ id: "call_g", name: "files-grow", arguments: "{}" }] },
      { text: "grown" },
    );
    const first = fixture.model.requests.length;
    await session.sendAndWait({ prompt: "grow" });
    const afterGrow = namesOf(setup, first + 1);
    await session.rpc.mcp.disable({ serverName: "files" });
    const whileDisabled = await offeredNames(session);
    await session.rpc.mcp.enable({ serverName: "files" });
    const enabled = await offeredNames(session);
    await session.disconnect();

    expect({
      before: namesOf(setup, first),
      afterGrow,
      whileDisabled,
      enabled,
    }).toEqual({
      before: without(["echo"]),
      // `files-extra` was added by `grow`; `mcp:*` offers it, excludedTools still hides echo.
      afterGrow: [...without(["echo"]), "files-extra"],
      whileDisabled: [],
      enabled: without(["echo"]),
    });
  });
});

/** {@link ALL_MCP} without the server's tools `names`. */
function without(names: readonly string[]): string[] {
  return ALL_MCP.filter((name) => !names.some((tool) => name === `files-${tool}`));
}
