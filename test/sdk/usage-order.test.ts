import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { beforeAll, expect, test } from "vitest";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, startCopilotClient } from "./support.js";

/**
 * Trial 40 F5: the order of a reply's events as an official `@github/copilot-sdk` client sees
 * them, streaming, over one tool round trip: Copilot sends `session.usage_info` and
 * `assistant.usage` before the `assistant.message` they are about (the Copilot protocol notes'
 * observed order), so an app that totals cost on `assistant.message` has that request's usage.
 */

const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  client = await startCopilotClient(fixture);
});

test("usage_info and usage come before each reply's assistant.message, as Copilot sends them", async () => {
  const session = await client.createSession({ onPermissionRequest: approveAll, streaming: true });
  const types: string[] = [];
  session.on((event: SessionEvent) => {
    if (event.type !== "assistant.message_delta" && event.type !== "assistant.streaming_delta") {
      types.push(event.type);
    }
  });
  fixture.model.enqueue(callingTools(["call_v", "view", { path: "." }]), { text: "Looked." });
  await session.sendAndWait({ prompt: "look" });

  expect(types).toEqual([
    "user.message",
    "assistant.turn_start",
    "session.usage_info",
    "assistant.usage",
    "assistant.message",
    "tool.execution_start",
    "tool.execution_complete",
    "assistant.turn_end",
    "assistant.turn_start",
    "session.usage_info",
    "assistant.usage",
    "assistant.message",
    "assistant.turn_end",
    "assistant.idle",
    "session.idle",
  ]);
  await session.disconnect();
});
