import { expect, test } from "vitest";
import {
  expectAcpPromptBeyondWindow,
  expectAcpPromptRefused,
  PROMPT_BEYOND_WINDOW,
} from "../support/context-limit.js";
import { ANSWERED_SESSION } from "../support/event-sequences.js";
import { ChildFixture } from "./child-process.js";

// A prompt beyond the model's known context window over ACP (`turnloop acp` as a child process):
// `session/prompt` is answered with a -32602 error naming both sizes and the editor's own settings
// (never a CLI flag alone), before any request; no turn is claimed (no update, nothing in the
// log); the session takes the next prompt.

const fixture = ChildFixture.forEachTest();

test("session/prompt with a prompt beyond the window is a -32602 error in the editor's words; nothing is sent or stored, and the next prompt runs", async () => {
  fixture.server.enqueue({ text: "fine" });
  const agent = fixture.startAgent({ TURNLOOP_CONTEXT_WINDOW: "8000" });
  await agent.initialize();
  const sessionId = await agent.newSession();
  const failure = await agent
    .prompt(sessionId, PROMPT_BEYOND_WINDOW)
    .catch((error: unknown) => error);
  const message = expectAcpPromptBeyondWindow(failure);
  expect(message).toMatch(
    /^session\/prompt: the prompt is about \d+ tokens with the system prompt and tools \(99999 characters\), more than the context window of openai-compatible:fake-model, 8000 tokens; nothing was sent\. Send a smaller part of it or fewer files, use a model with a larger window \(TURNLOOP_MODEL in the env of turnloop's entry in the editor's agent server settings \(or --model in its args\)\), or, if openai-compatible:fake-model's window is larger, set it with TURNLOOP_CONTEXT_WINDOW in the env of turnloop's entry in the editor's agent server settings \(or --context-window in its args\)\.$/,
  );
  expect(fixture.server.requests).toHaveLength(0);
  // No turn claimed: the only updates are the session's own announcements, none of the prompt.
  const kinds = agent.updates(sessionId).map((update) => update.sessionUpdate);
  expect(kinds.filter((kind) => kind !== "available_commands_update")).toEqual([]);

  expect(await agent.prompt(sessionId, "short")).toEqual({ stopReason: "end_turn" });
  expect(await agent.end()).toBe(0);
  const logged = await fixture.persisted(sessionId);
  expect(logged.map((event) => event.type)).toEqual(ANSWERED_SESSION);
  expect(JSON.stringify(logged)).not.toContain("word word");
  // stdout carried protocol messages only.
  for (const line of agent.stdoutLines) {
    expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
  }
});

test("a window the system prompt and tools alone fill: session/prompt is the same -32602 refusal, saying so in the editor's words; nothing is sent or stored", async () => {
  const agent = fixture.startAgent({ TURNLOOP_CONTEXT_WINDOW: "1000" });
  await agent.initialize();
  const sessionId = await agent.newSession();
  const failure = await agent.prompt(sessionId, "hello").catch((error: unknown) => error);
  const message = expectAcpPromptRefused(failure, 1000);
  expect(message).toMatch(
    /^session\/prompt: the system prompt and the \d+ tool definitions alone take about \d+ tokens, more than the context window of openai-compatible:fake-model, 1000 tokens, before any prompt; nothing was sent\. If openai-compatible:fake-model's window is larger, set it with TURNLOOP_CONTEXT_WINDOW in the env of turnloop's entry in the editor's agent server settings \(or --context-window in its args\); else use a model with a larger window \(TURNLOOP_MODEL in the env of turnloop's entry in the editor's agent server settings \(or --model in its args\)\), or configure fewer MCP servers or tools\.$/,
  );
  expect(fixture.server.requests).toHaveLength(0);
  const kinds = agent.updates(sessionId).map((update) => update.sessionUpdate);
  expect(kinds.filter((kind) => kind !== "available_commands_update")).toEqual([]);
  expect(await agent.end()).toBe(0);
  const logged = await fixture.persisted(sessionId);
  expect(JSON.stringify(logged)).not.toContain("hello");
});
