import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForEachTest, startCopilotClient } from "./support.js";

// A trial's finding (round 3, session 35, L1): the SDK face's `assistant.message` carried the
// reasoning only under turnloop's names (`reasoning`, `reasoningParts`); an app written for the
// Copilot SDK reads `reasoningText` (its generated `AssistantMessageData`) and showed none, live
// or in `getMessages()`.

const fixture = fixtureForEachTest();

test("assistant.message carries the reasoning as Copilot's reasoningText, live and in getEvents (getMessages)", async () => {
  fixture.model.enqueue({ reasoning: "Thinking it over.", text: "Done." });
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const live: unknown[] = [];
  session.on((event) => {
    if (event.type === "assistant.message") {
      live.push([event.data.content, event.data.reasoningText]);
    }
  });
  await session.sendAndWait({ prompt: "Think." });
  const stored = (await session.getEvents()).flatMap((event) =>
    event.type === "assistant.message" ? [[event.data.content, event.data.reasoningText]] : [],
  );
  expect({ live, stored }).toEqual({
    live: [["Done.", "Thinking it over."]],
    stored: [["Done.", "Thinking it over."]],
  });
  await session.disconnect();
});
