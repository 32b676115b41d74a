import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  keyCutEverywhere,
  REDACTED_KEY,
  SPLIT_KEY,
  SPLIT_KEY_VARIABLE,
} from "../support/split-secret.js";
import { firstTurnEnd, firstUsage, streamingApps } from "./streaming-apps.js";
import { fixtureForFile, normalise } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * An API key of the server's environment that the model's stream cuts across two deltas, at every
 * place (test/support/split-secret.ts), reaches an app only whole and redacted: in its
 * `assistant.reasoning_delta` and `assistant.message_delta` events as in the completed message.
 * Once over stdio to turnloop's SDK and once over TCP to the official `@github/copilot-sdk`.
 */

const fixture = fixtureForFile();
let tcp: TcpServer;
beforeAll(async () => {
  fixture.env[SPLIT_KEY_VARIABLE] = SPLIT_KEY;
  tcp = await startTcpServer(fixture);
});
afterAll(async () => {
  await tcp.stop();
});

const answer = keyCutEverywhere("answer");
const reasoning = keyCutEverywhere("thought");
const PROMPT = "Which key do you use?";

/** What every app sees of the prompt, after `normalise`. */
const expected = [
  {
    type: "user.message",
    data: { content: PROMPT, source: "user", agentMode: "interactive", promptId: "prompt-1" },
  },
  { type: "assistant.turn_start", data: { turnId: "turn-1" } },
  ...reasoning.shown.map((deltaContent) => ({
    type: "assistant.reasoning_delta",
    data: { messageId: "message-1", deltaContent, reasoningId: "message-1" },
  })),
  ...answer.shown.map((deltaContent) => ({
    type: "assistant.message_delta",
    data: { messageId: "message-1", deltaContent },
  })),
  ...firstUsage(),
  { type: "assistant.reasoning", data: { content: reasoning.text, reasoningId: "message-1" } },
  {
    type: "assistant.message",
    data: {
      messageId: "message-1",
      content: answer.text,
      toolRequests: [],
      finishReason: "stop",
      reasoning: reasoning.text,
      reasoningParts: [{ text: reasoning.text }],
      reasoningText: reasoning.text,
    },
  },
  ...firstTurnEnd(),
];

const apps = streamingApps(fixture, () => tcp);

describe("an API key the stream cuts across two deltas", () => {
  test.each(apps)("%s: every delta shows it only whole, redacted", async (_, open) => {
    const { events, send } = await open();
    fixture.model.enqueue({ reasoning: reasoning.pieces, text: answer.pieces });
    await send(PROMPT);
    expect(normalise(events, fixture)).toEqual(expected);
    expect(JSON.stringify(events)).not.toContain(SPLIT_KEY.slice(0, 6));
    expect(answer.text).toContain(`${REDACTED_KEY}\nanswer 27: `);
  });
});
