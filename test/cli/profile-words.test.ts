import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Round 3, session 22's trial (README, "Config files"): a `providers` profile without `baseUrl`
// was told "set --base-url or TURNLOOP_BASE_URL", naming neither the profile nor its key; and a
// profile whose `apiKeyEnv` names a variable that is not set ran on without a key (or with
// OPENAI_API_KEY's, sent to the profile's endpoint) until the provider refused it. Each is now
// said before any request, in the profile's terms, exit 64, nothing stored.

/** No model or endpoint from the environment: the config file's profile alone. */
const FROM_FILE = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };

test("a profile without baseUrl names the profile's key to set; TURNLOOP_BASE_URL does not stand in for it", async ({
  cli,
  home,
  model,
}) => {
  const file = join(home, "config.json");
  await writeFile(
    file,
    JSON.stringify({
      model: "vllm:fake-model",
      providers: { vllm: { type: "openai-compatible" } },
    }),
  );
  const result = await cli(["-p", "hi"], { env: FROM_FILE });
  expect(result).toEqual({
    code: 64,
    signal: null,
    stdout: "",
    stderr: `turnloop: vllm:fake-model needs an endpoint: set providers.vllm.baseUrl in ${file}, e.g. http://127.0.0.1:8000/v1 (--base-url or TURNLOOP_BASE_URL serves only models of no config profile, never a profile's key).\n`,
  });
  // TURNLOOP_BASE_URL does not serve a profile's model either (README, "Config files").
  const fromVariable = await cli(["-p", "hi"], {
    env: { ...FROM_FILE, TURNLOOP_BASE_URL: `${model.url}/v1` },
  });
  expect([fromVariable.code, fromVariable.stderr]).toEqual([64, result.stderr]);
  expect(model.requests).toEqual([]);
});

test("an apiKeyEnv naming an unset variable is said before any request, whatever other key is set; config shows it unset", async ({
  cli,
  home,
  model,
}) => {
  const file = join(home, "config.json");
  await writeFile(
    file,
    JSON.stringify({
      model: "vllm:fake-model",
      providers: {
        vllm: { type: "openai-compatible", baseUrl: `${model.url}/v1`, apiKeyEnv: "VLLM_API_KEY" },
      },
    }),
  );
  const missing = `turnloop: vllm:fake-model needs an API key: VLLM_API_KEY is not set (providers.vllm.apiKeyEnv in ${file} names it); set it, or TURNLOOP_API_KEY.\n`;
  // Unset, empty, and unset beside another provider's key (which was sent to the endpoint).
  for (const env of [{}, { VLLM_API_KEY: "" }, { OPENAI_API_KEY: "sk-openai-not-for-vllm" }]) {
    const result = await cli(["-p", "hi"], { env: { ...FROM_FILE, ...env } });
    expect(result).toEqual({ code: 64, signal: null, stdout: "", stderr: missing });
  }
  expect(model.requests).toEqual([]);
  expect(await readdir(home)).not.toContain("session-state");

  const shown = await cli(["config"], { env: FROM_FILE });
  expect(shown.stdout.split("\n").find((line) => line.startsWith("apiKey "))).toBe(
    `apiKey                   (not set: VLLM_API_KEY is empty or unset)    from ${file}`,
  );

  model.enqueue({ text: "Reached." });
  const set = await cli(["-p", "hi"], { env: { ...FROM_FILE, VLLM_API_KEY: "vllm-key-123456" } });
  expect([set.code, set.stdout]).toEqual([0, "Reached.\n"]);
  expect(model.requests[0]?.headers.authorization).toBe("Bearer vllm-key-123456");
});
