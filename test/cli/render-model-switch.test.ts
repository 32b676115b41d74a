/**
 * A trial of round 3, session 43 (F2): `sessions show` drew a `/model` switch made between two
 * prompts inside the first prompt's block, above its `[stop: end_turn]`, though the log has the
 * turn's end (and its stop) first. A switch between prompts now follows the stop line, as a
 * manual compaction is headed (the session model's `betweenPrompts`); one made while a prompt
 * runs (an SDK app's `session.model.switchTo` mid-prompt) stays inside that prompt.
 */

import { describe, expect, test } from "vitest";
import { renderConversation } from "../../src/cli/render.js";
import type { EventInput } from "../../src/events/events.js";
import { buildEvents, userMessage } from "../session/support.js";

function answered(turnId: string, text: string): EventInput[] {
  return [
    { type: "assistant.turn_start", data: { turnId } },
    {
      type: "assistant.message",
      data: { messageId: `m-${turnId}`, content: text, toolRequests: [], finishReason: "stop" },
    },
    {
      type: "assistant.turn_end",
      data: { turnId, status: "completed", finishReason: "stop", stopReason: "end_turn" },
    },
  ];
}

const SWITCH: EventInput = {
  type: "session.model_change",
  data: { previousModel: "openai-compatible:fake", newModel: "openai-compatible:other" },
};

describe("a model switch in sessions show", () => {
  test("between prompts: after the prompt's stop line", () => {
    const events = buildEvents([
      userMessage("first"),
      ...answered("t1", "one"),
      SWITCH,
      userMessage("second"),
      ...answered("t2", "two"),
    ]);
    expect(renderConversation(events)).toBe(
      "> first\none\n[stop: end_turn]\n" +
        "model: openai-compatible:fake → openai-compatible:other\n" +
        "\n> second\ntwo\n[stop: end_turn]\n",
    );
  });

  test("while a prompt runs: inside it, before its stop line", () => {
    const events = buildEvents([
      userMessage("first"),
      { type: "assistant.turn_start", data: { turnId: "t1" } },
      SWITCH,
      {
        type: "assistant.message",
        data: { messageId: "m1", content: "one", toolRequests: [], finishReason: "stop" },
      },
      {
        type: "assistant.turn_end",
        data: { turnId: "t1", status: "completed", finishReason: "stop", stopReason: "end_turn" },
      },
    ]);
    expect(renderConversation(events)).toBe(
      "> first\nmodel: openai-compatible:fake → openai-compatible:other\none\n[stop: end_turn]\n",
    );
  });
});
