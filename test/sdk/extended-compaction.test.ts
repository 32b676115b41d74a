import { approveAll, type CopilotSession } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { useCopilotClient } from "./extended-support.js";
import { recordEvents } from "./support.js";

/**
 * Issue 25, extended: `infiniteSessions` thresholds feed turnloop's compaction, driven through
 * the official `@github/copilot-sdk` over the built CLI against the fake model (a context window
 * of 8,000 tokens; the model reports how many tokens each request held).
 */

const WINDOW = 8_000;
const setup = useCopilotClient({ TURNLOOP_CONTEXT_WINDOW: String(WINDOW) });

/** Two prompts; the first reply reports `inputTokens`; `[type, trigger]` of the compaction events. */
async function twoPrompts(session: CopilotSession, inputTokens: number, compacts: boolean) {
  const events = recordEvents(session);
  setup.fixture.model.enqueue({ text: "one", usage: { input: inputTokens, output: 100 } });
  await session.sendAndWait({ prompt: "first" });
  setup.fixture.model.enqueue(...(compacts ? [{ text: "Task: count." }] : []), { text: "two" });
  const reply = await session.sendAndWait({ prompt: "second" });
  expect(reply?.data.content).toBe("two");
  await session.disconnect();
  return events.flatMap((event) =>
    event.type === "session.compaction_start" || event.type === "session.compaction_complete"
      ? [
          [
            event.type,
            event.data.trigger,
            event.type === "session.compaction_start" && event.data.tokenLimit,
          ],
        ]
      : [],
  );
}

describe("infiniteSessions", () => {
  test("backgroundCompactionThreshold compacts below turnloop's 80 %; enabled: false does not compact above it", async () => {
    const early = await setup.client.createSession({
      onPermissionRequest: approveAll,
      infiniteSessions: { backgroundCompactionThreshold: 0.3 },
    });
    expect(await twoPrompts(early, 3_000, true)).toEqual([
      ["session.compaction_start", "threshold", WINDOW],
      ["session.compaction_complete", "threshold", false],
    ]);

    const standard = await setup.client.createSession({ onPermissionRequest: approveAll });
    expect(await twoPrompts(standard, 3_000, false)).toEqual([]);

    const standardFull = await setup.client.createSession({ onPermissionRequest: approveAll });
    expect(await twoPrompts(standardFull, 7_000, true)).toEqual([
      ["session.compaction_start", "threshold", WINDOW],
      ["session.compaction_complete", "threshold", false],
    ]);

    const disabled = await setup.client.createSession({
      onPermissionRequest: approveAll,
      infiniteSessions: { enabled: false },
    });
    expect(await twoPrompts(disabled, 7_000, false)).toEqual([]);
  });
});
