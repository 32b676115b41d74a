/**
 * What the files that stream one prompt to two apps share (split-secret, streamed-deltas): the two
 * apps, turnloop's SDK over stdio and the official `@github/copilot-sdk` over TCP with
 * `streaming: true`, and the events every app sees after a prompt's `assistant.message`.
 */

import { approveAll } from "@github/copilot-sdk";
import { expect } from "vitest";
import { type Fixture, MODEL, recordEvents } from "./support.js";
import type { TcpServer } from "./tcp-server.js";

/** An event as an app receives it: the fields the tests compare. */
export interface Envelope {
  type: string;
  data: unknown;
  id: string;
  parentId?: string | null;
  ephemeral?: boolean;
}

/** One app's session: `send` runs one prompt to `session.idle`; `events` holds what arrived. */
export type Opened = { events: Envelope[]; send: (prompt: string) => Promise<unknown> };

/**
 * The two apps as `test.each` rows, `[name, open]`: `open` starts a session on `fixture`'s
 * turnloop over stdio, or on `tcp()` (the file's server, read when the test runs) through the
 * official Copilot SDK.
 */
export function streamingApps(
  fixture: Fixture,
  tcp: () => TcpServer,
): Array<[string, () => Promise<Opened>]> {
  return [
    [
      "turnloop's SDK over stdio",
      async () => {
        const client = await fixture.startedClient();
        const session = await client.createSession();
        const events = recordEvents<Envelope>(session);
        return { events, send: (prompt) => session.sendAndWait({ prompt }) };
      },
    ],
    [
      "the official Copilot SDK over TCP",
      async () => {
        const client = await tcp().copilotClient();
        const session = await client.createSession({
          onPermissionRequest: approveAll,
          streaming: true,
        });
        const events = recordEvents<Envelope>(session);
        return { events, send: (prompt) => session.sendAndWait({ prompt }) };
      },
    ],
  ];
}

/**
 * The events before the reply (its `assistant.reasoning` and `assistant.message`) of a session's
 * first prompt, answered in one model request that the fake model counted as 10 tokens in and 5
 * out, as every app sees them after `normalise`: the context's size, then the request's usage
 * (Copilot's order: src/server/usage-order.ts).
 */
export function firstUsage(): Array<{ type: string; data: unknown }> {
  const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, reasoningTokens: 0 };
  return [
    {
      type: "session.usage_info",
      data: {
        currentTokens: expect.any(Number),
        tokenLimit: expect.any(Number),
        messagesLength: 2,
      },
    },
    {
      type: "assistant.usage",
      data: { model: MODEL.slice(MODEL.indexOf(":") + 1), turnId: "turn-1", ...usage },
    },
  ];
}

/** The events after the reply of a session's first prompt: the turn's end, then idle. */
export function firstTurnEnd(): Array<{ type: string; data: unknown }> {
  return [
    {
      type: "assistant.turn_end",
      data: { turnId: "turn-1", status: "completed", finishReason: "stop", stopReason: "end_turn" },
    },
    { type: "assistant.idle", data: {} },
    { type: "session.idle", data: { stopReason: "end_turn", mode: "interactive" } },
  ];
}
