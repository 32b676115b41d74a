import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { firstTurnEnd, firstUsage, streamingApps } from "./streaming-apps.js";
import { fixtureForFile, normalise } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * A long streamed reply as an app receives it (issue 26, figure 4f): the server groups the frames
 * written while a write is in flight into one write, and the app must still get every delta as its
 * own `assistant.message_delta` event (the Copilot SDK's wire), with its own id, in order, across
 * the grouping and the `Content-Length` of multi-byte text. Once over stdio to turnloop's SDK and
 * once over TCP to the official `@github/copilot-sdk`.
 */

const fixture = fixtureForFile();
let tcp: TcpServer;
beforeAll(async () => {
  tcp = await startTcpServer(fixture);
});
afterAll(async () => {
  await tcp.stop();
});

const DELTAS = 2_000;
/** Distinct pieces, some of them multi-byte in UTF-8. */
const pieces = Array.from({ length: DELTAS }, (_, index) =>
  index % 7 === 6 ? `${index + 1} ✓ é\n` : `${index + 1} `,
);
const PROMPT = "Count for me.";

/** What every app sees of one prompt answered with `pieces`, after `normalise`. */
const expected = [
  {
    type: "user.message",
    data: { content: PROMPT, source: "user", agentMode: "interactive", promptId: "prompt-1" },
  },
  { type: "assistant.turn_start", data: { turnId: "turn-1" } },
  ...pieces.map((deltaContent) => ({
    type: "assistant.message_delta",
    data: { messageId: "message-1", deltaContent },
  })),
  ...firstUsage(),
  {
    type: "assistant.message",
    data: {
      messageId: "message-1",
      content: pieces.join(""),
      toolRequests: [],
      finishReason: "stop",
    },
  },
  ...firstTurnEnd(),
];

const apps = streamingApps(fixture, () => tcp);

describe("a reply streamed in 2,000 deltas", () => {
  test.each(apps)(
    "%s: every delta is its own event, in order, with its own id",
    async (_, open) => {
      const { events, send } = await open();
      fixture.model.enqueue({ text: pieces });
      await send(PROMPT);
      expect(normalise(events, fixture)).toEqual(expected);
      // Every event has its own id; each delta is ephemeral and hangs off the turn's start.
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
      const turnStart = events.find((event) => event.type === "assistant.turn_start");
      const deltas = events.filter((event) => event.type === "assistant.message_delta");
      expect(deltas.map(({ parentId, ephemeral }) => ({ parentId, ephemeral }))).toEqual(
        pieces.map(() => ({ parentId: turnStart?.id, ephemeral: true })),
      );
    },
  );
});
