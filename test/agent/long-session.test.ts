import { expect } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import { isSummaryRequest, limitedModel, requestTokens } from "../support/context-limit.js";
import { test } from "../support/fixtures.js";

/** A read-only tool whose every result is 6 KB and names its page. */
const pageTool = defineTool({
  name: "read_page",
  description: "Reads one page of the manual.",
  input: z.object({ page: z.number() }),
  kind: "read",
  mutates: false,
  execute: async ({ page }) => {
    const line = `page ${page}: a line of the manual, long enough to fill six kilobytes.\n`;
    return { content: line.repeat(Math.ceil(6_144 / line.length)), isError: false };
  },
});

const TURNS = 300;
const WINDOW = 8_000;

test(`a ${TURNS}-turn session with 6 KB tool results stays inside an ${WINDOW}-token window`, async ({
  openHarness,
}) => {
  const harness = await openHarness({
    wire: "openai-chat",
    tools: [pageTool],
    maxTurns: TURNS + 10,
  });
  harness.settings.contextWindow = WINDOW;
  harness.server.setResponder(
    limitedModel({
      limit: WINDOW,
      conversation: (index) =>
        index < TURNS - 1
          ? {
              toolCalls: [
                { id: `call-${index}`, name: "read_page", arguments: `{"page":${index}}` },
              ],
            }
          : { text: "read every page" },
    }),
  );
  const outcome = await harness.prompt("read the whole manual, one page at a time");
  expect(outcome).toEqual({ stopReason: "end_turn" });
  const { requests } = harness.server;
  const conversation = requests.filter((request) => !isSummaryRequest(request));
  expect(conversation).toHaveLength(TURNS);
  // The fake server validates every request's tool pairs (400 otherwise) and its window.
  expect(requests.filter((request) => request.status !== 200)).toEqual([]);
  expect(Math.max(...requests.map((request) => requestTokens(request.body)))).toBeLessThanOrEqual(
    WINDOW,
  );
  const events = await harness.persisted();
  const turnStarts = events.filter((event) => event.type === "assistant.turn_start");
  expect(turnStarts).toHaveLength(requests.length);
  const completes = events.filter((event) => event.type === "session.compaction_complete");
  expect(completes.length).toBe(requests.length - TURNS);
  expect(completes.every((event) => event.data.success)).toBe(true);
}, 120_000);
