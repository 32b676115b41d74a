import { describe, expect, test } from "vitest";
import { COMMANDS } from "../../src/session/commands.js";
import { SESSION_COMMAND_NAMES } from "../support/slash-commands.js";
import { ChildFixture } from "./child-process.js";

// Issue 17: the commands in available_commands_update are the interactive terminal's definitions
// (session/commands.ts) that need no terminal of their own, and each runs over ACP; over the
// built CLI as a child process.

const fixture = ChildFixture.forEachTest();

const said = (text: string) => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
  messageId: "<id>",
});

describe("ACP slash commands", () => {
  test("each advertised command runs, with no model request", async () => {
    const agent = fixture.startAgent({ TURNLOOP_MODELS: "openai-compatible:other-model" });
    await agent.initialize();
    const sessionId = await agent.newSession();
    await agent.waitForUpdate(
      sessionId,
      (update) => update.sessionUpdate === "available_commands_update",
    );
    const advertised = agent.updates(sessionId)[0];
    expect(advertised).toEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: COMMANDS.filter((command) => !command.terminalOnly).map((command) => ({
        name: command.name,
        description: command.description,
        ...(command.input === undefined ? {} : { input: command.input }),
      })),
    });
    const names =
      advertised?.sessionUpdate === "available_commands_update"
        ? advertised.availableCommands.map((command) => command.name)
        : [];
    expect(names).toEqual(SESSION_COMMAND_NAMES);
    // /compact is a model request of its own: test/acp/compaction.test.ts runs it.

    const run = async (text: string) => agent.prompt(sessionId, text);
    for (const line of [
      "/help",
      "/model openai-compatible:other-model",
      "/mode auto",
      "/mode",
      "/usage",
      "/sessions",
      "/new",
    ]) {
      expect(await run(line)).toEqual({ stopReason: "end_turn" });
    }
    expect(fixture.server.requests).toEqual([]);
    const updates = agent
      .updates(sessionId)
      .slice(1)
      .map((update) =>
        "messageId" in update && typeof update.messageId === "string"
          ? { ...update, messageId: "<id>" }
          : update,
      );
    const help = updates[0];
    expect(help).toMatchObject(said(expect.stringContaining("/model [provider:model]")));
    expect(updates.slice(1)).toEqual([
      {
        sessionUpdate: "config_option_update",
        configOptions: [
          expect.objectContaining({ id: "mode", currentValue: "ask" }),
          expect.objectContaining({ id: "model", currentValue: "openai-compatible:other-model" }),
          expect.objectContaining({ id: "sandbox", currentValue: "danger-full-access" }),
        ],
      },
      said("model: openai-compatible:other-model"),
      { sessionUpdate: "current_mode_update", currentModeId: "auto" },
      {
        sessionUpdate: "config_option_update",
        configOptions: [
          expect.objectContaining({ id: "mode", currentValue: "auto" }),
          expect.objectContaining({ id: "model", currentValue: "openai-compatible:other-model" }),
          // Mode auto confines commands: its default policy (issue 23).
          expect.objectContaining({ id: "sandbox", currentValue: "workspace-write" }),
        ],
      },
      said(
        "mode: auto (commands run in the sandbox and edits inside the workspace without asking)",
      ),
      said(
        [
          "  ask: reads inside the workspace run freely; edits and commands ask first",
          "* auto: commands run in the sandbox and edits inside the workspace without asking",
          "  autopilot: works on its own until the task is done; asks as auto does",
        ].join("\n"),
      ),
      said(
        [
          "turns:          0",
          "input tokens:   0",
          "output tokens:  0",
          "cost:           unknown (no price for this model)",
        ].join("\n"),
      ),
      said(expect.stringMatching(new RegExp(`^\\* ${sessionId.slice(0, 8)} `))),
      said("/new works in turnloop's interactive terminal, not over ACP."),
    ]);

    // The next prompt goes to the model the command chose; an unknown /word is a prompt.
    fixture.server.enqueue({ text: "Sure." });
    expect(await run("/unknown thing")).toEqual({ stopReason: "end_turn" });
    const body = fixture.server.requests[0]?.body as { model?: string; messages?: unknown[] };
    expect(body.model).toBe("other-model");
    expect(JSON.stringify(body.messages)).toContain("/unknown thing");
    expect(await agent.end()).toBe(0);
  });
});
