import { describe, expect } from "vitest";
import { endpointName } from "../../src/llm/base-url.js";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { Wire } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES, type Harness } from "../support/harness.js";
import { dataOf, statuses } from "./helpers.js";

const MODELS = {
  "openai-responses": "openai:gpt-5-mini",
  anthropic: "anthropic:claude-sonnet-4-5",
};

/** `harness`'s model at `url` (another endpoint of the same wire): its provider from now on. */
function switchTo(harness: Harness, wire: keyof typeof MODELS, url: string): void {
  const resolved = resolveModel(
    { model: MODELS[wire], baseUrl: `${url}/v1` },
    { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" },
  );
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  harness.settings.provider = createProvider(resolved.configuration, FAST_RETRIES);
}

/** What the reasoning of request `index` to `requests` carries back: its encrypted or signed blocks. */
function reasoningSent(wire: Wire, body: unknown): unknown[] {
  const text = JSON.stringify(body);
  const blocks = wire === "anthropic" ? /"signature":"([^"]*)"/g : /"encrypted_content":"([^"]*)"/g;
  return [...text.matchAll(blocks)].map((match) => match[1]);
}

describe.for([
  ["openai-responses", { encryptedReasoning: "ENC_A" }, "ENC_A"],
  ["anthropic", { reasoning: "thought", reasoningSignature: "SIG_A" }, "SIG_A"],
] as const)(
  "%s: reasoning goes back only to the endpoint that issued it",
  ([wire, reply, blob]) => {
    test("not to another base URL of the same wire, again to its own, also after a restart", async ({
      openHarness,
    }) => {
      const harness = await openHarness({ wire });
      const other = await startFakeModelServer();
      try {
        harness.server.enqueue({ ...reply, text: "first" }, { text: "back" }, { text: "again" });
        other.enqueue({ text: "elsewhere" });
        expect(await harness.prompt("one")).toEqual({ stopReason: "end_turn" });
        const [stored] = dataOf(await harness.persisted(), "assistant.message");
        expect(stored?.reasoningParts?.map((part) => part.endpoint)).toEqual([
          `${wire === "anthropic" ? "anthropic" : "openai"} ${harness.server.url}/v1`,
        ]);

        switchTo(harness, wire, other.url);
        expect(await harness.prompt("two")).toEqual({ stopReason: "end_turn" });
        switchTo(harness, wire, harness.server.url);
        expect(await harness.prompt("three")).toEqual({ stopReason: "end_turn" });
        await harness.reopen();
        expect(await harness.prompt("four")).toEqual({ stopReason: "end_turn" });

        expect(other.requests.map((request) => reasoningSent(wire, request.body))).toEqual([[]]);
        expect(harness.server.requests.map((request) => reasoningSent(wire, request.body))).toEqual(
          [[], [blob], [blob]],
        );
        expect([...statuses(harness), ...other.requests.map((request) => request.status)]).toEqual([
          200, 200, 200, 200,
        ]);
      } finally {
        await other.close();
      }
    });
  },
);

test("the recorded endpoint holds no user name, password or query of the base URL", () => {
  expect(endpointName("openai", "https://bob:secret@h.example/v1?api-key=k#f")).toBe(
    "openai https://h.example/v1",
  );
  expect(endpointName("anthropic", undefined)).toBe("anthropic default");
});
