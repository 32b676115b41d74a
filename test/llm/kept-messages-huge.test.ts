/**
 * Issue 26 with issue 27 item 3: an OpenAI-compatible model keeps its earlier wire messages
 * (src/llm/sync-chunk-validation.ts `withKeptMessages`) while a huge text reaches its request as a
 * placeholder that turnloop's fetch fills in (src/llm/huge-messages.ts). Through the provider, as
 * the loop calls it, every request body must be byte for byte the one the AI SDK's model alone
 * sends for the same prompt: before a huge prompt, with it, after it, with a huge tool result, and
 * in the turns after both.
 */

import { describe, expect, it } from "vitest";
import { differencesOver, hugeText, toolTurn, userMessage } from "./provider-bodies.js";

describe("an OpenAI-compatible model's kept wire messages and huge texts", () => {
  it("sends the SDK's body, byte for byte, around a huge prompt and a huge tool result", async () => {
    const differences = await differencesOver([
      [userMessage("read the notes"), ...toolTurn(1)],
      toolTurn(2),
      [userMessage(hugeText("prompt"))],
      toolTurn(3),
      toolTurn(4, hugeText("result")),
      toolTurn(5),
      [userMessage("and now?"), ...toolTurn(6)],
      toolTurn(7),
    ]);
    expect(differences).toEqual([]);
  }, 60_000);

  it("sends the SDK's body, byte for byte, when a huge tool result comes first", async () => {
    const differences = await differencesOver([
      [userMessage("read the big file"), ...toolTurn(1, hugeText("result"))],
      toolTurn(2),
      toolTurn(3, hugeText("second result")),
      toolTurn(4),
    ]);
    expect(differences).toEqual([]);
  }, 60_000);
});
