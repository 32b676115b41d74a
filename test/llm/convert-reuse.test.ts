/**
 * `toPrompt` keeps each history message's conversion for later requests (issue 26, figure 3): the
 * prompt of every request must stay what a fresh conversion of the same history gives, after more
 * turns, a compaction, a rewind, and under other conversion options.
 */

import { describe, expect, it } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput } from "../../src/events/events.js";
import { type ToolImages, toPrompt, withoutOpenAiItemIds } from "../../src/llm/convert.js";
import type { HistoryMessage } from "../../src/llm/provider.js";
import { buildEvents } from "../session/support.js";

const PIXEL = "iVBORw0KGgo=";

/** A turn of two parallel calls (their results share one tool message), with replayed metadata. */
function toolTurn(turn: number): EventInput[] {
  const calls = [`call_${turn}a`, `call_${turn}b`];
  return [
    { type: "assistant.turn_start", data: { turnId: String(turn) } },
    {
      type: "assistant.message",
      data: {
        messageId: `m${turn}`,
        content: `looking ${turn}`,
        providerMetadata: { openai: { itemId: `msg_${turn}`, phase: "final" } },
        toolRequests: calls.map((toolCallId) => ({
          toolCallId,
          name: "view",
          arguments: { path: `${toolCallId}.png` },
        })),
        finishReason: "tool-calls",
      },
    },
    ...calls.map(
      (toolCallId, index): EventInput => ({
        type: "tool.execution_complete",
        data: {
          toolCallId,
          toolName: "view",
          success: true,
          result: {
            content: `contents of ${toolCallId}`,
            ...(index === 0 ? { images: [{ mimeType: "image/png", data: PIXEL }] } : {}),
          },
        },
      }),
    ),
    { type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } },
  ];
}

const OPENING: EventInput[] = [
  {
    type: "user.message",
    data: {
      content: "look at the pictures",
      source: "user",
      images: [{ mimeType: "image/png", data: PIXEL }],
    },
  },
];

function fold(history: History, inputs: readonly EventInput[]): void {
  for (const event of buildEvents(inputs)) {
    history.apply(event);
  }
}

type Options = [imageInput: boolean, userImages: boolean, toolImages: ToolImages];
const OPTION_SETS: Options[] = [
  [false, false, "note"],
  [true, true, "note"],
  [false, true, "user-message"],
  [false, false, "user-message"],
];

function convert(messages: readonly HistoryMessage[], [image, user, tool]: Options) {
  return toPrompt("system", messages, withoutOpenAiItemIds, image, user, tool);
}

/** The prompt of `history` now, and what a conversion of fresh copies of its messages gives. */
function nowAndFresh(history: History, options: Options) {
  return {
    now: convert(history.messages, options),
    fresh: convert(structuredClone(history.messages), options),
  };
}

describe("toPrompt's kept conversions", () => {
  it("reuses each message's conversion and gives what a fresh conversion gives", () => {
    const history = new History();
    fold(history, [...OPENING, ...toolTurn(1)]);
    const first = convert(history.messages, OPTION_SETS[0] as Options);
    fold(history, toolTurn(2));
    const { now, fresh } = nowAndFresh(history, OPTION_SETS[0] as Options);
    expect(now).toEqual(fresh);
    // The messages of turn 1 are the very objects of the first request: the prompt was extended.
    expect(now.slice(0, first.length).map((message, index) => message === first[index])).toEqual(
      // The system prompt is new each time; the merged tool message of two results is kept.
      [false, true, true, true],
    );
    // Asked again (the merge must not have grown the kept tool results), nothing changes.
    expect(convert(history.messages, OPTION_SETS[0] as Options)).toEqual(fresh);
  });

  it("leaves the prompts it returned as they were, and follows results inserted between others", () => {
    const history = new History();
    fold(history, OPENING);
    const options = OPTION_SETS[0] as Options;
    const [assistant, resultA, resultB, turnEnd] = toolTurn(1).slice(1) as EventInput[];
    fold(history, [assistant as EventInput, resultB as EventInput]);
    const beforeA = convert(history.messages, options);
    const beforeACopy = structuredClone(beforeA);
    // Result a completes last but goes before b: a message inserted between kept ones.
    fold(history, [resultA as EventInput, turnEnd as EventInput]);
    expect(history.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
    ]);
    const afterA = nowAndFresh(history, options);
    expect(afterA.now).toEqual(afterA.fresh);
    expect(afterA.now.at(-1)).toMatchObject({
      role: "tool",
      content: [{ toolCallId: "call_1a" }, { toolCallId: "call_1b" }],
    });
    fold(history, toolTurn(2));
    const later = nowAndFresh(history, options);
    expect(later.now).toEqual(later.fresh);
    expect(beforeA).toEqual(beforeACopy);
    expect(later.now[0]).not.toBe(afterA.now[0]);
  });

  it("matches a fresh conversion under each set of options, in any order", () => {
    const history = new History();
    fold(history, [...OPENING, ...toolTurn(1), ...toolTurn(2)]);
    for (const options of [...OPTION_SETS, ...OPTION_SETS.toReversed()]) {
      const { now, fresh } = nowAndFresh(history, options);
      expect(now).toEqual(fresh);
    }
  });

  it("matches a fresh conversion after a compaction and after a rewind", () => {
    const history = new History();
    const before = [...OPENING, ...toolTurn(1), ...toolTurn(2)];
    fold(history, before);
    const options = OPTION_SETS[2] as Options;
    convert(history.messages, options);
    fold(history, [
      {
        type: "session.compaction_complete",
        data: {
          success: true,
          trigger: "manual",
          preCompactionTokens: 1000,
          messagesRemoved: 4,
          summaryContent: "pictures were looked at",
        },
      },
      ...toolTurn(3),
    ]);
    const compacted = nowAndFresh(history, options);
    expect(compacted.now).toEqual(compacted.fresh);
    expect(compacted.now[1]).toMatchObject({ role: "user" });

    // A rewind folds the kept events again into the same History.
    history.clear();
    fold(history, [...OPENING, ...toolTurn(1)]);
    const rewound = nowAndFresh(history, options);
    expect(rewound.now).toEqual(rewound.fresh);
    expect(rewound.now).toHaveLength(rewound.fresh.length);
  });
});
