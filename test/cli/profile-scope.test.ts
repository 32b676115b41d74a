import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";

// A config profile's endpoint and key serve its own model only (README, "Config files"). Before,
// the profile's `apiKeyEnv` became TURNLOOP_API_KEY for the whole run and its `baseUrl` the run's
// endpoint: a resumed session on another model sent that model's key to the profile's server, or
// the profile's key to that model's vendor.

const FROM_FILE = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };

test("another model in the same run gets its own endpoint and key, never the profile's; the profile's key is a secret in the log whatever its name", async ({
  cli,
  home,
  model,
  loggedEvents,
}) => {
  const vendor = await startFakeModelServer();
  try {
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({
        model: "work:fake-model",
        providers: {
          work: { type: "openai-compatible", baseUrl: `${model.url}/v1`, apiKeyEnv: "WORK_LLM" },
        },
      }),
    );
    const env = {
      ...FROM_FILE,
      WORK_LLM: "work-secret-123456",
      OPENAI_API_KEY: "openai-secret-654321",
      OPENAI_BASE_URL: `${vendor.url}/v1`,
    };
    // A session on the vendor's model, then continued under the profile's config: it keeps its
    // own model, so its own endpoint and key.
    vendor.enqueue({ text: "First." }, { text: "Second." });
    const first = await cli(["-p", "hi", "--model", "openai:gpt-test"], { env });
    expect([first.code, first.stdout]).toEqual([0, "First.\n"]);
    const again = await cli(["-p", "--continue", "again"], { env });
    expect([again.code, again.stdout]).toEqual([0, "Second.\n"]);
    // A new session runs on the profile's model, at its endpoint with its key.
    model.enqueue({ text: "The key is work-secret-123456." });
    const fresh = await cli(["-p", "hi"], { env });
    expect(fresh.code).toBe(0);

    const sent = (requests: typeof model.requests) =>
      requests.map(({ path, headers }) => [path, headers.authorization]);
    expect(sent(vendor.requests)).toEqual([
      ["/v1/responses", "Bearer openai-secret-654321"],
      ["/v1/responses", "Bearer openai-secret-654321"],
    ]);
    expect(sent(model.requests)).toEqual([["/v1/chat/completions", "Bearer work-secret-123456"]]);
    // `WORK_LLM` does not look like a key's name; it is one, so the log never holds its value.
    const log = JSON.stringify(await loggedEvents(printedSessionId(fresh.stderr)));
    expect(log).not.toContain("work-secret-123456");
    expect(log).toContain("The key is [redacted:WORK_LLM].");
  } finally {
    await vendor.close();
  }
});
