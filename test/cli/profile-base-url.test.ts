import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";

// A base URL given for the run (`--base-url`, `TURNLOOP_BASE_URL`, a config file's `baseUrl`)
// serves the models of no config profile; a profile's models always go to the profile's own
// `baseUrl` (else its type's own endpoint) with its key (README, "Config files"). Before, the
// override redirected every profile too: `lab:other` sent LAB_KEY to TURNLOOP_BASE_URL's server.

const KEYS = {
  LAB_KEY: "lab-secret-111111",
  CLOUD_KEY: "cloud-secret-222222",
  OPENAI_API_KEY: "openai-secret-333333",
};

/** Each request a server got: its path, its key (bearer or Anthropic's header), its model. */
const sent = (server: FakeModelServer) =>
  server.requests.map(({ path, headers, body }) => [
    path,
    headers.authorization ?? headers["x-api-key"],
    (body as { model?: string }).model,
  ]);

/** `lab` (openai-compatible at `lab`) and `cloud` (anthropic, no baseUrl: its type's own). */
async function writeProfiles(file: string, lab: FakeModelServer) {
  await writeFile(
    file,
    JSON.stringify({
      model: "lab:fake-model",
      providers: {
        lab: { type: "openai-compatible", baseUrl: `${lab.url}/v1`, apiKeyEnv: "LAB_KEY" },
        cloud: { type: "anthropic", apiKeyEnv: "CLOUD_KEY" },
      },
    }),
  );
}

test("TURNLOOP_BASE_URL set: -p and /model send a profile's model to its own endpoint with its key, other models there with theirs", async ({
  cli,
  home,
  model: lab,
}) => {
  const elsewhere = await startFakeModelServer();
  const vendor = await startFakeModelServer();
  try {
    const file = join(home, "config.json");
    await writeProfiles(file, lab);
    const env = {
      ...KEYS,
      TURNLOOP_MODEL: "",
      TURNLOOP_BASE_URL: `${elsewhere.url}/v1`,
      ANTHROPIC_BASE_URL: vendor.url,
    };
    lab.enqueue({ text: "One." }, { text: "Three." });
    elsewhere.enqueue({ text: "Two." }, { text: "Four." });
    vendor.enqueue({ text: "Five." });
    for (const [model, answer] of [
      ["lab:other", "One.\n"],
      ["openai-compatible:plain", "Two.\n"],
      ["cloud:claude-test", "Five.\n"],
    ]) {
      const result = await cli(["-p", "hi", "--model", model as string], { env });
      expect([result.code, result.stdout, result.stderr]).toEqual([0, answer, expect.any(String)]);
    }
    const stdin = "/model lab:other\nthree\n/model openai-compatible:plain\nfour\n";
    const interactive = await cli([], { env, stdin });
    expect(interactive.code, interactive.stderr).toBe(0);
    expect(interactive.stdout).toContain("> Three.\n");
    expect(interactive.stdout).toContain("> Four.\n");

    expect(sent(lab)).toEqual([
      ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "other"],
      ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "other"],
    ]);
    expect(sent(elsewhere)).toEqual([
      ["/v1/chat/completions", `Bearer ${KEYS.OPENAI_API_KEY}`, "plain"],
      ["/v1/chat/completions", `Bearer ${KEYS.OPENAI_API_KEY}`, "plain"],
    ]);
    expect(sent(vendor)).toEqual([["/v1/messages", KEYS.CLOUD_KEY, "claude-test"]]);

    // `turnloop config` says where each goes.
    const shown = await cli(["config", "--model", "lab:other"], { env });
    expect(shown.stdout.split("\n").filter((line) => /^(baseUrl|otherModels)/.test(line))).toEqual([
      `baseUrl                  ${lab.url}/v1    from providers.lab.baseUrl in ${file}`,
      `otherModelsBaseUrl       ${elsewhere.url}/v1    from TURNLOOP_BASE_URL`,
    ]);
    const json = JSON.parse(
      (await cli(["config", "--json", "--model", "lab:other"], { env })).stdout,
    );
    expect([json.baseUrl, json.otherModelsBaseUrl]).toEqual([
      { value: `${lab.url}/v1`, source: file },
      { value: `${elsewhere.url}/v1`, source: "TURNLOOP_BASE_URL" },
    ]);
  } finally {
    await Promise.all([elsewhere.close(), vendor.close()]);
  }
});

test("--base-url with a profile's model is a usage error naming where that model runs; nothing is sent", async ({
  cli,
  home,
  model: lab,
}) => {
  const elsewhere = await startFakeModelServer();
  try {
    const file = join(home, "config.json");
    await writeProfiles(file, lab);
    const env = { ...KEYS, TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };
    const given = `${elsewhere.url}/v1`;
    const result = await cli(["-p", "hi", "--model", "lab:other", "--base-url", given], { env });
    expect(result).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: --base-url does not apply to lab:other, a model of the config profile "lab": it runs at providers.lab.baseUrl in ${file}, ${lab.url}/v1, with the profile's key (--base-url serves models of no config profile); to send it to ${given}, use --model openai-compatible:other\n`,
    });
    // The model that message names runs there, with the provider's key.
    elsewhere.enqueue({ text: "There." });
    const there = await cli(
      ["-p", "hi", "--model", "openai-compatible:other", "--base-url", given],
      {
        env,
      },
    );
    expect([there.code, there.stdout]).toEqual([0, "There.\n"]);
    expect(sent(elsewhere)).toEqual([
      ["/v1/chat/completions", `Bearer ${KEYS.OPENAI_API_KEY}`, "other"],
    ]);
    expect(lab.requests).toEqual([]);
  } finally {
    await elsewhere.close();
  }
});
