/**
 * `History` keeps its latest user message and latest assistant message as it folds (issue 26,
 * figure 3: the per-turn result budget and the compaction guard read them every turn instead of
 * searching the whole view). After every event, a compaction, a rewind (`clear` and a new fold)
 * they must be what a search of the view from its end finds: the latest `user` message that is not
 * a compaction summary, and the latest `assistant` message.
 */

import { describe, expect, it } from "vitest";
import { History } from "../../src/agent/history.js";
import type { EventInput } from "../../src/events/events.js";
import type { HistoryMessage } from "../../src/llm/provider.js";
import { buildEvents } from "../session/support.js";

function toolTurn(turn: number): EventInput[] {
  return [
    {
      type: "assistant.message",
      data: {
        messageId: `m${turn}`,
        content: `reading ${turn}`,
        toolRequests: [{ toolCallId: `call_${turn}`, name: "view", arguments: { path: "a.md" } }],
        finishReason: "tool-calls",
      },
    },
    {
      type: "tool.execution_complete",
      data: {
        toolCallId: `call_${turn}`,
        toolName: "view",
        success: true,
        result: { content: `line ${turn}` },
      },
    },
  ];
}

function prompt(content: string, source: "user" | "autopilot" = "user"): EventInput {
  return { type: "user.message", data: { content, source } };
}

function compaction(messagesRemoved: number, summaryContent: string): EventInput {
  return {
    type: "session.compaction_complete",
    data: {
      success: true,
      trigger: "threshold",
      preCompactionTokens: 1000,
      messagesRemoved,
      summaryContent,
    },
  };
}

/** What a search of the view from its end finds, as the budget did before History kept it. */
function searched(history: History): [HistoryMessage | undefined, HistoryMessage | undefined] {
  return [
    history.messages.findLast((message) => message.role === "user" && !history.isSummary(message)),
    history.messages.findLast((message) => message.role === "assistant"),
  ];
}

function kept(history: History): [HistoryMessage | undefined, HistoryMessage | undefined] {
  return [history.latestUserMessage, history.latestAssistantMessage];
}

/** Folds `inputs` one event at a time, checking the kept messages after each; returns them. */
function foldChecked(history: History, inputs: readonly EventInput[]): string[] {
  const latest: string[] = [];
  for (const event of buildEvents(inputs)) {
    history.apply(event);
    expect(kept(history)).toEqual(searched(history));
    expect(kept(history)[0]).toBe(searched(history)[0]);
    expect(kept(history)[1]).toBe(searched(history)[1]);
    latest.push(
      `${history.latestUserMessage?.content} | ${history.latestAssistantMessage?.content}`,
    );
  }
  return latest;
}

describe("History's latest user and assistant messages", () => {
  it("follow prompts, nudges and tool turns, and survive compactions", () => {
    const history = new History();
    const seen = foldChecked(history, [
      prompt("first question"),
      ...toolTurn(1),
      ...toolTurn(2),
      prompt("keep going", "autopilot"),
      ...toolTurn(3),
      // Removes the nudge too: the compacted view keeps it after the summary.
      compaction(6, "read a.md twice"),
      ...toolTurn(4),
      prompt("second question"),
      ...toolTurn(5),
      // Keeps "second question" itself (the last three messages).
      compaction(6, "read a.md more"),
    ]);
    expect(seen).toEqual([
      "first question | undefined",
      "first question | reading 1",
      "first question | reading 1",
      "first question | reading 2",
      "first question | reading 2",
      "keep going | reading 2",
      "keep going | reading 3",
      "keep going | reading 3",
      "keep going | reading 3",
      "keep going | reading 4",
      "keep going | reading 4",
      "second question | reading 4",
      "second question | reading 5",
      "second question | reading 5",
      "second question | reading 5",
    ]);
    expect(history.messages.map((message) => message.role)).toEqual([
      "user",
      "user",
      "assistant",
      "tool",
    ]);
    expect(history.isSummary(history.messages[0] as HistoryMessage)).toBe(true);
  });

  it("are forgotten by clear and found again by a new fold (a rewind)", () => {
    const history = new History();
    foldChecked(history, [prompt("first"), ...toolTurn(1), prompt("second"), ...toolTurn(2)]);
    history.clear();
    expect(kept(history)).toEqual([undefined, undefined]);
    const seen = foldChecked(history, [prompt("first"), ...toolTurn(1)]);
    expect(seen).toEqual(["first | undefined", "first | reading 1", "first | reading 1"]);
  });

  it("are none when a compaction removed every message but its summary's view", () => {
    const history = new History();
    foldChecked(history, [...toolTurn(1), compaction(2, "no prompt was seen")]);
    expect(history.messages).toHaveLength(1);
    expect(kept(history)).toEqual([undefined, undefined]);
  });
});
