import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { PROMPT_BEYOND_WINDOW } from "../support/context-limit.js";
import { ANSWERED_SESSION } from "../support/event-sequences.js";
import {
  chatBody,
  fixtureForFile,
  nextEvent,
  normalise,
  recordEvents,
  startCopilotClient,
} from "./support.js";

// A prompt beyond the model's known context window from an app (the official Copilot SDK over
// `turnloop --headless --stdio`): reported as a failed send is on the Copilot wire, a
// `session.error` then the prompt's end (`assistant.idle`, `session.idle`), so `sendAndWait` rejects with the message, in the server's
// words (its environment, never a CLI flag); nothing is sent or stored; the session goes on.

const fixture = fixtureForFile();

test("sendAndWait with a prompt beyond the window rejects with the refusal; no request, nothing stored, the next prompt runs", async () => {
  fixture.env.TURNLOOP_CONTEXT_WINDOW = "8000";
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const events = recordEvents(session);
  const idle = nextEvent(session, (event) => event.type === "session.idle");
  const failure = await session
    .sendAndWait({ prompt: PROMPT_BEYOND_WINDOW })
    .catch((error: unknown) => error);
  expect(String(failure)).toMatch(
    /^Error: the prompt is about \d+ tokens with the system prompt and tools \(99999 characters\), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent\. Send a smaller part of it or fewer files, use a model with a larger window \(the session's model \(createSession\(\{ model: "<provider>:<model>" \}\)\) or TURNLOOP_MODEL in the server's environment\), or, if openai-compatible:fake-model's window is larger, set it with TURNLOOP_CONTEXT_WINDOW in the server's environment\.$/,
  );
  expect(fixture.model.requests).toHaveLength(0);
  const message = String(failure).replace(/^Error: /, "");
  await idle;
  expect(
    normalise(
      events.map((event) => ({ type: event.type, data: event.data })),
      fixture,
    ),
  ).toEqual([
    { type: "session.error", data: { errorType: "context_length_exceeded", message } },
    { type: "assistant.idle", data: {} },
    { type: "session.idle", data: { mode: "interactive" } },
  ]);
  expect((await session.getEvents()).map((event) => event.type)).toEqual(["session.start"]);

  fixture.model.enqueue({ text: "Short answer." });
  const answer = await session.sendAndWait({ prompt: "short" });
  expect(answer?.data.content).toBe("Short answer.");
  expect((await session.getEvents()).map((event) => event.type)).toEqual(ANSWERED_SESSION);
});

test("turnloop's own SDK: sendAndWait rejects with the same refusal, and the session goes on", async () => {
  fixture.env.TURNLOOP_CONTEXT_WINDOW = "8000";
  const client = await fixture.startedClient();
  const session = await client.createSession();
  const failure = await session
    .sendAndWait({ prompt: PROMPT_BEYOND_WINDOW })
    .catch((error: unknown) => error);
  expect(String(failure)).toMatch(
    /^Error: the prompt is about \d+ tokens .* set it with TURNLOOP_CONTEXT_WINDOW in the server's environment\.$/,
  );
  fixture.model.enqueue({ text: "Still here." });
  expect((await session.sendAndWait({ prompt: "short" }))?.data.content).toBe("Still here.");
  const users = chatBody(fixture.model.requests.at(-1)).messages.filter(
    (message) => message.role === "user",
  );
  expect(users.map((message) => message.content)).toEqual(["short"]);
});

test("a window the system prompt and tools alone fill: sendAndWait rejects with the refusal before any request, in the server's words; nothing stored", async () => {
  fixture.env.TURNLOOP_CONTEXT_WINDOW = "1000";
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const requests = fixture.model.requests.length;
  const failure = await session.sendAndWait({ prompt: "hello" }).catch((error: unknown) => error);
  expect(String(failure)).toMatch(
    /^Error: the system prompt and the \d+ tool definitions alone take about \d+ tokens, more than the context window of openai-compatible:fake-model, 1000 tokens, before any prompt; nothing was sent\. If openai-compatible:fake-model's window is larger, set it with TURNLOOP_CONTEXT_WINDOW in the server's environment; else use a model with a larger window \(the session's model \(createSession\(\{ model: "<provider>:<model>" \}\)\) or TURNLOOP_MODEL in the server's environment\), or configure fewer MCP servers or tools\.$/,
  );
  expect(fixture.model.requests).toHaveLength(requests);
  expect((await session.getEvents()).map((event) => event.type)).toEqual(["session.start"]);
});
