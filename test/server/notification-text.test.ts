import { describe, expect, it } from "vitest";
import type { EventInput } from "../../src/events/events.js";
import { notificationFrame, notificationText } from "../../src/server/notification-text.js";
import { createEnvelope } from "../../src/session/envelope.js";

/** What vscode-jsonrpc's `sendNotification` would have written: the reference text. */
const reference = (method: string, params: object) =>
  JSON.stringify({ jsonrpc: "2.0", method, params });

/** A delta as the SDK face sends it: a reasoning delta names its block (wire-events.ts). */
const delta = (deltaContent: string, type = "assistant.message_delta") =>
  createEnvelope(
    {
      type,
      data: {
        messageId: "m-1",
        deltaContent,
        ...(type === "assistant.reasoning_delta" ? { reasoningId: "m-1" } : {}),
      },
    } as EventInput,
    "019cfd9c-79b8-49f2-b681-c8ed962e0e55",
  );

/** Texts JSON escapes, and texts it writes as they are. */
const CONTENTS = [
  "w1 ",
  "",
  'say "hi"',
  "back\\slash",
  "line\nbreak\ttab\r\u0000\u0007\u001f\u007f",
  "Hé ✓ \u2028\u2029",
  "emoji 😀 pair",
  "lone \ud800 high",
  "lone \udc00 low",
  "</script>",
];

describe("notificationText", () => {
  it("writes a session.event delta exactly as JSON.stringify does, whatever its text", () => {
    const texts = CONTENTS.flatMap((content) =>
      ["assistant.message_delta", "assistant.reasoning_delta"].map((type) => {
        const params = { sessionId: 's-\u00e9"1', event: delta(content, type) };
        return notificationText("session.event", params) === reference("session.event", params);
      }),
    );
    expect(texts).toEqual(CONTENTS.flatMap(() => [true, true]));
  });

  it("writes a delta whose parent is null, and any other notification, as JSON.stringify does", () => {
    const first = { ...delta("first"), parentId: null };
    const cases: Array<[string, object]> = [
      ["session.event", { sessionId: "s-1", event: first }],
      ["session.event", { sessionId: "s-1", event: { ...delta("x"), extra: 1 } }],
      ["session.event", { event: delta("x"), sessionId: "s-1" }],
      [
        "session.event",
        { sessionId: "s-1", event: { ...delta("x"), data: { deltaContent: "x", messageId: "m" } } },
      ],
      ["session.event", { sessionId: "s-1", event: { ...delta("x"), ephemeral: undefined } }],
      [
        "session.event",
        {
          sessionId: "s-1",
          event: {
            ...delta("x", "assistant.reasoning_delta"),
            data: { messageId: "m-1", deltaContent: "x", reasoningId: "other" },
          },
        },
      ],
      [
        "session.event",
        {
          sessionId: "s-1",
          event: {
            ...delta("x", "assistant.reasoning_delta"),
            data: { messageId: "m-1", deltaContent: "x" },
          },
        },
      ],
      ["session.event", { sessionId: "s-1", event: { ...delta("x"), timestamp: new Date(0) } }],
      ["session.event", { sessionId: 7, event: delta("x") }],
      ["session.lifecycle", { type: "session.updated", sessionId: "s-1", metadata: {} }],
    ];
    expect(cases.map(([method, params]) => notificationText(method, params))).toEqual(
      cases.map(([method, params]) => reference(method, params)),
    );
  });
});

describe("notificationFrame", () => {
  it("heads each notification with its UTF-8 byte count, ASCII or not, delta or not", () => {
    const params = CONTENTS.flatMap((content) => [
      { sessionId: "s-1", event: delta(content) },
      { sessionId: "s-\u00e9", event: delta(content, "assistant.reasoning_delta") },
      { sessionId: "s-1", event: { ...delta(content), id: "é" } },
      { sessionId: "s-1", event: { ...delta(content), parentId: null } },
    ]);
    const framed = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    expect(params.map((each) => notificationFrame("session.event", each))).toEqual(
      params.map((each) => framed(reference("session.event", each))),
    );
    const lifecycle = { type: "session.updated", sessionId: "s-é", metadata: {} };
    expect(notificationFrame("session.lifecycle", lifecycle)).toBe(
      framed(reference("session.lifecycle", lifecycle)),
    );
  });
});
