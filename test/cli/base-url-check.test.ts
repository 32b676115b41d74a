import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A user trial: `turnloop -p hi --base-url notaurl` failed only after its session was stored (exit
// 1, "the base URL cannot be used: Invalid URL"). A base URL that is not an http(s) URL is a
// run-config error, from wherever it came: exit 64 naming its source, before any session
// (src/session/face-config.ts, baseUrlProblem).

const NOT_HTTP = "is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)";

test("a base URL from a flag, a variable or a file that is not http(s): exit 64 naming it, nothing stored", async ({
  cli,
  model,
  home,
}) => {
  const file = join(home, "config.json");
  const anthropic = { ANTHROPIC_API_KEY: "sk-test", TURNLOOP_BASE_URL: undefined };
  const runs = [
    await cli(["-p", "hi", "--base-url", "notaurl"]),
    await cli(["-p", "hi"], { env: { TURNLOOP_BASE_URL: "ftp://127.0.0.1/v1" } }),
    await cli(["-p", "hi"], { env: { TURNLOOP_BASE_URL: "http://127.0.0.1:99999/v1" } }),
    await cli(["-p", "hi", "--model", "anthropic:m"], {
      env: { ...anthropic, ANTHROPIC_BASE_URL: "localhost:9000" },
    }),
  ];
  await writeFile(file, '{"baseUrl": "ftp://127.0.0.1/v1"}\n');
  runs.push(await cli(["-p", "hi"], { env: { TURNLOOP_BASE_URL: undefined } }));
  await writeFile(file, '{"baseUrl": "http://127.0.0.1:48O1/v1"}\n');
  runs.push(await cli(["-p", "hi"], { env: { TURNLOOP_BASE_URL: undefined } }));
  await writeFile(
    file,
    '{"providers": {"local": {"type": "openai-compatible", "baseUrl": "file:///v1"}}}\n',
  );
  runs.push(
    await cli(["-p", "hi", "--model", "local:m"], { env: { TURNLOOP_BASE_URL: undefined } }),
  );
  expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual(
    [
      `--base-url "notaurl" ${NOT_HTTP}`,
      `TURNLOOP_BASE_URL "ftp://127.0.0.1/v1" ${NOT_HTTP}`,
      // Trial 44 F4: a port out of range or with a letter in it is named as the fault.
      `TURNLOOP_BASE_URL "http://127.0.0.1:99999/v1" its port "99999" is no number from 0 to 65535 (e.g. http://127.0.0.1:8000/v1)`,
      `ANTHROPIC_BASE_URL "localhost:9000" ${NOT_HTTP}`,
      `${file}: baseUrl: "ftp://127.0.0.1/v1" ${NOT_HTTP}`,
      `${file}: baseUrl: "http://127.0.0.1:48O1/v1" its port "48O1" is no number from 0 to 65535 (e.g. http://127.0.0.1:8000/v1)`,
      `${file}: providers.local.baseUrl: "file:///v1" ${NOT_HTTP}`,
    ].map((message) => ({ code: 64, stdout: "", stderr: `turnloop: ${message}\n` })),
  );
  expect(model.requests).toEqual([]);
  expect(existsSync(join(home, "session-state"))).toBe(false);
});

// Found by the round-3 session-20 fixes lane: OLLAMA_HOST was never checked, so
// `OLLAMA_HOST=ftp://127.0.0.1:1` became the endpoint `http://ftp://127.0.0.1:1/v1` and failed only
// after its session was stored (exit 1, "the host ftp was not found"). It is now read as Ollama
// reads it (`host:port` or an http(s) URL) and checked as the other endpoint variables are.
test("OLLAMA_HOST that is no host:port nor http(s) URL: exit 64 naming it, nothing stored", async ({
  cli,
  model,
  home,
}) => {
  const ollama = { TURNLOOP_MODEL: "ollama:qwen3", TURNLOOP_BASE_URL: undefined };
  const runs = [
    await cli(["-p", "hi"], { env: { ...ollama, OLLAMA_HOST: "ftp://127.0.0.1:1" } }),
    await cli(["-p", "hi"], { env: { ...ollama, OLLAMA_HOST: " " } }),
  ];
  expect(runs.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual(
    [`OLLAMA_HOST "ftp://127.0.0.1:1" ${NOT_HTTP}`, `OLLAMA_HOST " " ${NOT_HTTP}`].map(
      (message) => ({ code: 64, stdout: "", stderr: `turnloop: ${message}\n` }),
    ),
  );
  expect(model.requests).toEqual([]);
  expect(existsSync(join(home, "session-state"))).toBe(false);
});

// Set but empty counts as unset for every variable (README, "Environment variables"), read once
// by the run config: an empty TURNLOOP_BASE_URL leaves the provider's own variable in force, and
// OLLAMA_HOST as `host:port` names the server.
test("an empty TURNLOOP_BASE_URL is unset: OPENAI_BASE_URL, or OLLAMA_HOST's host:port, is the endpoint", async ({
  cli,
  model,
}) => {
  model.enqueue({ text: "from OPENAI_BASE_URL" });
  model.enqueue({ text: "from OLLAMA_HOST" });
  const openai = await cli(["-p", "hi"], {
    env: {
      TURNLOOP_MODEL: "openai-chat:fake-model",
      TURNLOOP_BASE_URL: "",
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: "test-key",
    },
  });
  const ollama = await cli(["-p", "hi"], {
    env: {
      TURNLOOP_MODEL: "ollama:fake-model",
      TURNLOOP_BASE_URL: "",
      OLLAMA_HOST: new URL(model.url).host,
    },
  });
  expect([openai, ollama].map(({ code, stdout }) => ({ code, stdout }))).toEqual([
    { code: 0, stdout: "from OPENAI_BASE_URL\n" },
    { code: 0, stdout: "from OLLAMA_HOST\n" },
  ]);
  expect(model.requests.map((request) => request.path)).toEqual([
    "/v1/chat/completions",
    "/v1/chat/completions",
  ]);
});
