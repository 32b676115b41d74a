import { describe, expect } from "vitest";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES } from "../support/harness.js";
import { statuses } from "./helpers.js";

const MODELS: Record<Wire, string> = {
  "openai-chat": "openai-chat:gpt-4.1",
  "openai-responses": "openai:gpt-5-mini",
  anthropic: "anthropic:claude-sonnet-4-5",
};

/**
 * A base URL's `user:password` is HTTP Basic authorization on every wire (as for MCP URLs): it was
 * sent on Anthropic's wire but silently dropped on both OpenAI wires (trial r3s46 F3). The
 * Authorization header carries it there in place of the key's Bearer; Anthropic's key stays in
 * `x-api-key`. The user name and password are percent-decoded, as Node's `auth` decodes them.
 */
describe.for(Object.keys(MODELS) as Wire[])("%s", (wire) => {
  test("a base URL's user:password is sent as HTTP Basic", async ({ openHarness }) => {
    const harness = await openHarness({ wire });
    const withUser = harness.server.url.replace("http://", "http://bob:pw%21@");
    const resolved = resolveModel(
      { model: MODELS[wire], baseUrl: `${withUser}/v1` },
      { OPENAI_API_KEY: "sk-k", ANTHROPIC_API_KEY: "sk-k" },
    );
    if (!resolved.ok) {
      throw new Error(resolved.message);
    }
    harness.settings.provider = createProvider(resolved.configuration, FAST_RETRIES);
    harness.server.enqueue({ text: "ok" });
    expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn" });
    expect(statuses(harness)).toEqual([200]);
    const { authorization, "x-api-key": apiKey } = harness.server.requests[0]?.headers ?? {};
    expect([authorization, apiKey]).toEqual([
      `Basic ${Buffer.from("bob:pw!").toString("base64")}`,
      wire === "anthropic" ? "sk-k" : undefined,
    ]);
  });
});
