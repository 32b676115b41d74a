import { describe, expect, test } from "vitest";
import { AcpHarness } from "./support.js";
import { agentTexts, thoughtTexts } from "./update-texts.js";

// Trial of round 3, session 25, item 1: an empty reply ended `end_turn` with no message at all;
// the editor is told the warning, as a thought: never the reply's text (src/acp/notices.ts).

describe("an empty answer in ACP", () => {
  test("an empty reply and a reasoning-only one each end with the warning as a thought", async () => {
    const harness = await AcpHarness.start();
    harness.server.enqueue({ text: "" }, { reasoning: "Thinking it over.", text: "" });
    const sessionId = await harness.newSession();
    const answers = [
      await harness.prompt(sessionId, "hi"),
      await harness.prompt(sessionId, "again"),
    ];
    expect(answers).toEqual([{ stopReason: "end_turn" }, { stopReason: "end_turn" }]);
    expect(agentTexts(harness.updates(sessionId))).toEqual([]);
    expect(thoughtTexts(harness.updates(sessionId))).toEqual([
      "⚠ the model returned an empty answer\n",
      "Thinking it over.",
      "⚠ the model returned only reasoning, no answer\n",
    ]);
  });
});
