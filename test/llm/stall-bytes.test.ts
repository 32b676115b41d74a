import http from "node:http";
import type { Socket } from "node:net";
import { expect, vi } from "vitest";
import type { ProviderTuning } from "../../src/llm/models.js";
import type { RawPiece } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { type Gate, gate } from "../support/gate.js";
import { CHAT_DONE, dataOf, eventually } from "./helpers.js";

// The stall limit of this test; the idle clock is faked (as in stalls.test.ts) and moved on by
// the test, so the limit is never waited out.
const IDLE_MS = 2_000;
const TUNING: ProviderTuning = {
  idleTimeoutMs: IDLE_MS,
  retry: { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 0 },
};

/** The sockets Node's global agent has in use for requests now (httpFetch's, http-fetch.ts). */
function agentSockets(): Socket[] {
  return Object.values(http.globalAgent.sockets).flatMap((sockets) => sockets ?? []);
}

// Trial 33, finding 1: a 30 MB answer in one SSE event arrived over minutes, bytes flowing the
// whole time, and `-p` failed it as "the model stream stalled: no data for 180 s": only parsed
// stream parts counted as a sign of life. README: a stream is retried when it "sends no byte".
test("one event arriving in pieces, each well within the stall limit, the whole longer: no stall", async ({
  openHarness,
}) => {
  const harness = await openHarness({ wire: "openai-chat", tuning: TUNING });
  const pieces = ["a".repeat(1000), "b".repeat(1000), "c".repeat(1000), "d".repeat(1000)];
  const gates: Gate[] = pieces.map(() => gate());
  const start = '{"id":"x","object":"chat.completion.chunk","created":1,"model":"fake-model",';
  const raw: RawPiece[] = [`data: ${start}"choices":[{"index":0,"delta":{"content":"`];
  pieces.forEach((piece, index) => {
    raw.push({ until: (gates[index] as Gate).opened }, piece);
  });
  raw.push(
    '"},"finish_reason":null}]}\n\n',
    `data: ${start}"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
    CHAT_DONE,
  );
  harness.server.enqueue({ raw });
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "hrtime"] });
  try {
    const running = harness.prompt("one long event");
    let socket: Socket | undefined;
    let read = 0;
    for (const next of gates) {
      // Bytes of the event reached turnloop (its socket read them): the clock may move on.
      // (A connection closed as stalled brings no more: the prompt's outcome then tells.)
      const arrived = await eventually(() => {
        socket ??= agentSockets()[0];
        return socket !== undefined && socket.bytesRead > read;
      });
      if (!arrived) {
        break;
      }
      read = socket?.bytesRead ?? 0;
      // Three quarters of the limit since the last bytes; four times over, three limits in all.
      vi.advanceTimersByTime((IDLE_MS * 3) / 4);
      next.open();
    }
    expect(await running).toEqual({ stopReason: "end_turn" });
  } finally {
    vi.useRealTimers();
  }
  expect(dataOf(harness.events, "assistant.message").map((message) => message.content)).toEqual([
    pieces.join(""),
  ]);
  expect(harness.server.requests).toHaveLength(1);
});
