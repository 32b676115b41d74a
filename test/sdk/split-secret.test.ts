import { approveAll } from "@github/copilot-sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  keyCutEverywhere,
  REDACTED_KEY,
  SPLIT_KEY,
  SPLIT_KEY_VARIABLE,
} from "../support/split-secret.js";
import { fixtureForFile, MODEL, normalise, recordEvents } from "./support.js";
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
const BARE_MODEL = MODEL.slice(MODEL.indexOf(":") + 1);
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, reasoningTokens: 0 };

/** What every app sees of the prompt, after `normalise`. */
const expected = [
  {
    type: "user.message",
    data: { content: PROMPT, source: "user", agentMode: "interactive", promptId: "prompt-1" },
  },
  { type: "assistant.turn_start", data: { turnId: "turn-1" } },
  ...reasoning.shown.map((deltaContent) => ({
    type: "assistant.reasoning_delta",
    data: { messageId: "message-1", deltaContent },
  })),
  ...answer.shown.map((deltaContent) => ({
    type: "assistant.message_delta",
    data: { messageId: "message-1", deltaContent },
  })),
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
  { type: "assistant.usage", data: { model: BARE_MODEL, turnId: "turn-1", ...usage } },
  {
    type: "session.usage_info",
    data: { currentTokens: expect.any(Number), tokenLimit: expect.any(Number), messagesLength: 2 },
  },
  {
    type: "assistant.turn_end",
    data: { turnId: "turn-1", status: "completed", finishReason: "stop", stopReason: "end_turn" },
  },
  { type: "assistant.idle", data: {} },
  { type: "session.idle", data: { stopReason: "end_turn" } },
];

/** One app's session: `send` runs one prompt to `session.idle`; `events` holds what arrived. */
type Opened = {
  events: Array<{ type: string; data: unknown }>;
  send: (prompt: string) => Promise<unknown>;
};

const apps: Array<[string, () => Promise<Opened>]> = [
  [
    "turnloop's SDK over stdio",
    async () => {
      const client = await fixture.startedClient();
      const session = await client.createSession();
      const events = recordEvents<{ type: string; data: unknown }>(session);
      return { events, send: (prompt) => session.sendAndWait({ prompt }) };
    },
  ],
  [
    "the official Copilot SDK over TCP",
    async () => {
      const client = await tcp.copilotClient();
      const session = await client.createSession({
        onPermissionRequest: approveAll,
        streaming: true,
      });
      const events = recordEvents<{ type: string; data: unknown }>(session);
      return { events, send: (prompt) => session.sendAndWait({ prompt }) };
    },
  ],
];

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
