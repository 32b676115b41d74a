import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { renderReply } from "../support/render-reply.js";
import { fixtureForFile, recordEvents, startCopilotClient } from "./support.js";

// Trial 39, F6: an app that does not ask for `streaming: true` gets non-streaming model requests
// (Copilot's default); a server that streams anyway (`content-type: text/event-stream`) failed
// the prompt as "the model server's reply is not JSON". The reply is read as the stream it is:
// the app gets the whole answer, with no deltas, and the server is asked once.

const fixture = fixtureForFile();

test("a server that streams a non-streaming request anyway: the app gets the whole answer, one request", async () => {
  const context = { sequence: 1, model: "fake-model", createdAt: 0 };
  const bytes = renderReply("openai-chat", { text: ["Streamed ", "anyway."] }, context).map(
    ({ data }) => `data: ${data}\n\n`,
  );
  fixture.model.setResponder(() => ({ raw: bytes }));
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const events = recordEvents(session);
  const reply = await session.sendAndWait({ prompt: "hello" });
  fixture.model.setResponder(undefined);
  expect(reply?.data.content).toBe("Streamed anyway.");
  expect(events.map((event) => event.type)).not.toContain("assistant.message_delta");
  expect(events.filter((event) => event.type === "session.error")).toEqual([]);
  expect(fixture.model.requests.map((request) => request.body)).toEqual([
    expect.not.objectContaining({ stream: true }),
  ]);
  await session.disconnect();
});
