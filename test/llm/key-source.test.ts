import { describe, expect } from "vitest";
import { createProvider, resolveModel } from "../../src/llm/models.js";
import { test } from "../support/fixtures.js";
import { FAST_RETRIES } from "../support/harness.js";
import { dataOf, statuses } from "./helpers.js";

/**
 * A refused key names the variable it came from, never the key: a stale `TURNLOOP_API_KEY`
 * overrides a good `OPENAI_API_KEY` without a word, and the 401 alone misled (trial r3s46 F5).
 */
describe("a refused API key names where it came from", () => {
  test.for([
    [
      { TURNLOOP_API_KEY: "sk-stale-1", OPENAI_API_KEY: "sk-good-1" },
      "HTTP 401: invalid api key (the API key from TURNLOOP_API_KEY was refused, which overrides every provider's own key variable)",
    ],
    [
      { OPENAI_API_KEY: "sk-stale-1" },
      "HTTP 401: invalid api key (the API key from OPENAI_API_KEY was refused)",
    ],
    [
      // The URL's user:password goes as HTTP Basic in place of the key's Bearer: the key was not
      // sent, so it is not named (the re-check of trial r3s46's fixes).
      { OPENAI_API_KEY: "sk-stale-1", BASE_URL_USER: "bob:pw@" },
      "HTTP 401: invalid api key",
    ],
  ] as const)("%o", async ([env, message], { openHarness }) => {
    const harness = await openHarness({ wire: "openai-chat" });
    const user = "BASE_URL_USER" in env ? env.BASE_URL_USER : "";
    const resolved = resolveModel(
      {
        model: "openai-chat:gpt-4.1",
        baseUrl: `${harness.server.url.replace("//", `//${user}`)}/v1`,
      },
      env,
    );
    if (!resolved.ok) {
      throw new Error(resolved.message);
    }
    harness.settings.provider = createProvider(resolved.configuration, FAST_RETRIES);
    harness.server.enqueue({
      status: 401,
      body: { error: { message: "invalid api key", type: "invalid_request_error" } },
    });
    expect(await harness.prompt("hi")).toEqual({
      error: { errorType: "authentication", message, statusCode: 401 },
    });
    expect(statuses(harness)).toEqual([401]);
    expect(dataOf(harness.events, "session.error").map((error) => error.message)).toEqual([
      message,
    ]);
    expect(JSON.stringify(await harness.persisted())).not.toContain("sk-stale-1");
  });
});
