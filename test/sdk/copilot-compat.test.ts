import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CopilotClient,
  type CopilotSession,
  defineTool,
  type PermissionRequest,
  RuntimeConnection,
  type SessionConfig,
  type SessionEvent,
} from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { removeTree } from "../support/remove-tree.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, requestMessages } from "./support.js";

/**
 * The official `@github/copilot-sdk` (1.0.14) pointed at turnloop as its CLI: it spawns
 * `node dist/cli/main.js --headless --no-auto-update --stdio` (turnloop accepts its flags), does the `connect` handshake (protocol 3),
 * and drives sessions with its own tool, permission and hook handlers.
 */

const fixture = fixtureForFile();

function copilotClient(): CopilotClient {
  const env = fixture.env;
  const client = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env }),
    workingDirectory: fixture.cwd,
  });
  fixture.onClose(() => client.stop());
  return client;
}

function record(session: CopilotSession): string[] {
  const types: string[] = [];
  session.on((event: SessionEvent) => types.push(event.type));
  return types;
}

describe("the Copilot SDK's own ways to name its CLI start turnloop", () => {
  test("COPILOT_CLI_PATH (the SDK's CLI path setting besides forStdio) and forTcp({ path }); the project's AGENTS.md applies", async () => {
    const project = await realpath(await mkdtemp(join(tmpdir(), "turnloop-copilot-project-")));
    await writeFile(join(project, "AGENTS.md"), "Apps get this rule too.\n");
    for (const connection of [
      undefined,
      RuntimeConnection.forTcp({ path: CLI_PATH, env: fixture.env }),
    ]) {
      const client =
        connection === undefined
          ? new CopilotClient({
              env: { ...fixture.env, COPILOT_CLI_PATH: CLI_PATH },
              workingDirectory: project,
            })
          : new CopilotClient({ connection, workingDirectory: project });
      fixture.onClose(() => client.stop());
      const session = await client.createSession({
        model: "gpt-4.1",
        provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      fixture.model.enqueue({ text: "Started by its CLI path." });
      const reply = await session.sendAndWait({ prompt: "hello" });
      expect(reply?.data.content).toBe("Started by its CLI path.");
      expect(String(requestMessages(fixture.model, -1)[0]?.content)).toContain(
        `<instructions path="${join(project, "AGENTS.md")}">\nApps get this rule too.\n</instructions>`,
      );
      await client.stop();
    }
    await removeTree(project);
  });
});

describe("the official Copilot SDK drives turnloop --headless --stdio", () => {
  test("custom tool, permission handler, hooks, sendAndWait, abort, resume, list, delete", async () => {
    const asked: PermissionRequest[] = [];
    const hooks: string[] = [];
    const config = (): SessionConfig => ({
      model: "gpt-4.1",
      provider: { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy" },
      tools: [
        defineTool("echo_upper", {
          description: "Upper-cases text",
          parameters: {
            type: "object",
            properties: { text: { type: "string" } },
            required: ["text"],
          },
          handler: async (args: { text: string }) => args.text.toUpperCase(),
        }),
      ],
      onPermissionRequest: (request) => {
        asked.push(request);
        return { kind: "approve-once" };
      },
      hooks: {
        onSessionStart: async (input) => {
          hooks.push(`sessionStart:${input.source}`);
          return undefined;
        },
        onUserPromptSubmitted: async (input) => {
          hooks.push(`userPromptSubmitted:${input.prompt}`);
          return undefined;
        },
        onPreToolUse: async (input) => {
          hooks.push(`preToolUse:${input.toolName}`);
          return undefined;
        },
        onPostToolUse: async (input) => {
          hooks.push(`postToolUse:${input.toolName}`);
          return undefined;
        },
      },
      streaming: true,
    });

    const client = copilotClient();
    const session = await client.createSession(config());
    const types = record(session);
    fixture.model.enqueue(callingTools(["call_u", "echo_upper", { text: "hello" }]), {
      text: "The tool returned HELLO.",
    });
    const reply = await session.sendAndWait({ prompt: "Upper-case the word hello using the tool" });
    expect(reply?.data.content).toBe("The tool returned HELLO.");
    expect(asked.map((request) => request.kind)).toEqual(["custom-tool"]);
    expect(hooks).toEqual([
      "sessionStart:new",
      "userPromptSubmitted:Upper-case the word hello using the tool",
      "preToolUse:echo_upper",
      "postToolUse:echo_upper",
    ]);
    expect(types.filter((type) => /^(tool|external_tool|permission)\./.test(type))).toEqual([
      "tool.execution_start",
      "permission.requested",
      "permission.completed",
      "external_tool.requested",
      "external_tool.completed",
      "tool.execution_complete",
    ]);
    const tool = requestMessages(fixture.model, -1).find((message) => message.role === "tool");
    expect(tool?.content).toBe("HELLO");

    // Abort while a command runs: the permission handler approves bash, then the app aborts.
    fixture.model.enqueue(callingTools(["call_s", "bash", { command: "echo go; sleep 30" }]));
    const running = new Promise<void>((resolve) =>
      session.on("tool.execution_partial_result", () => resolve()),
    );
    const idles: unknown[] = [];
    session.on("session.idle", (event) => idles.push(event.data));
    await session.send({ prompt: "sleep for a while" });
    await running;
    await session.abort();
    expect(types.slice(-5)).toEqual([
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
      "assistant.idle",
      "session.idle",
    ]);
    // IdleData.aborted: "true when the preceding agentic loop was cancelled via abort signal".
    expect(idles.at(-1)).toEqual({ stopReason: "cancelled", aborted: true, mode: "interactive" });
    expect(
      asked.map((request) => [
        request.kind,
        "fullCommandText" in request ? request.fullCommandText : "",
      ]),
    ).toEqual([
      ["custom-tool", ""],
      ["shell", "echo go; sleep 30"],
    ]);
    await client.stop();

    // Resume from another client: history on disk, a new prompt sees it.
    const second = copilotClient();
    const resumed = await second.resumeSession(session.sessionId, config());
    fixture.model.enqueue({ text: "Still here." });
    const again = await resumed.sendAndWait({ prompt: "Are you there?" });
    expect(again?.data.content).toBe("Still here.");
    const history = requestMessages(fixture.model, -1)
      .filter((message) => message.role === "user")
      .map((message) => message.content);
    expect(history).toEqual([
      "Upper-case the word hello using the tool",
      "sleep for a while",
      "Are you there?",
    ]);
    const events = await resumed.getEvents();
    expect(events.filter((event) => event.type === "session.resume").length).toBeGreaterThan(0);
    expect(hooks.at(-2)).toBe("sessionStart:resume");

    const listed = await second.listSessions();
    expect(listed.map((entry) => entry.sessionId)).toContain(session.sessionId);
    expect(listed.find((entry) => entry.sessionId === session.sessionId)?.context).toEqual({
      workingDirectory: fixture.cwd,
      gitRoot: undefined,
      repository: undefined,
      branch: undefined,
    });
    await resumed.disconnect();
    await second.deleteSession(session.sessionId);
    expect((await second.listSessions()).map((entry) => entry.sessionId)).not.toContain(
      session.sessionId,
    );
  });
});
