import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { SESSION_COMMAND_NAMES } from "../support/slash-commands.js";
import { useCopilotClient } from "./extended-support.js";
import { recordEvents } from "./support.js";

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
const LONG_ANSWER = `one. ${"The first answer, long enough to be worth summarising. ".repeat(20)}`;

/**
 * Issue 25, extended: `session.commands.list` / `invoke` over turnloop's slash commands, driven
 * through the official `@github/copilot-sdk` over the built CLI against the fake model.
 */

const setup = useCopilotClient();

describe("session.commands", () => {
  test("list names the commands an app can run; invoke runs them and reports as Copilot does", async () => {
    const session = await setup.client.createSession({ onPermissionRequest: approveAll });
    const { commands } = await session.rpc.commands.list();
    expect(commands.map((command) => command.name)).toEqual(SESSION_COMMAND_NAMES);
    expect(commands.find((command) => command.name === "model")).toEqual({
      name: "model",
      description: "Show the model, or switch to another one for the next prompts",
      kind: "builtin",
      input: { hint: "provider:model (optional)" },
      allowDuringAgentExecution: false,
    });

    const help = await session.rpc.commands.invoke({ name: "/help" });
    expect(help.kind === "text" && help.text).toContain("/usage");
    expect(await session.rpc.commands.invoke({ name: "model", input: "nope:thing" })).toEqual({
      kind: "text",
      text: expect.stringMatching(/^Error: /),
    });

    const events = recordEvents(session);
    setup.fixture.model.enqueue({ text: LONG_ANSWER }, { text: "two" }, { text: "Task: count." });
    await session.sendAndWait({ prompt: "first" });
    await session.sendAndWait({ prompt: "second" });
    expect(await session.rpc.commands.invoke({ name: "compact", input: "keep it short" })).toEqual({
      kind: "completed",
      message: "compacted 3 messages",
    });
    expect(
      events
        .filter((event) => event.type.startsWith("session.compaction"))
        .map((event) => [event.type, (event.data as { trigger?: string }).trigger]),
    ).toEqual([
      ["session.compaction_start", "manual"],
      ["session.compaction_complete", "manual"],
    ]);

    await expect(session.rpc.commands.invoke({ name: "exit" })).rejects.toThrow(
      'session.commands.invoke: no command "exit"',
    );
    await expect(session.rpc.commands.invoke({ name: "nope" })).rejects.toThrow(
      'session.commands.invoke: no command "nope"',
    );
    await session.disconnect();
  });
});
