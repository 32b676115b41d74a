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
      `TURNLOOP_BASE_URL "http://127.0.0.1:99999/v1" ${NOT_HTTP}`,
      `ANTHROPIC_BASE_URL "localhost:9000" ${NOT_HTTP}`,
      `${file}: baseUrl: "ftp://127.0.0.1/v1" ${NOT_HTTP}`,
      `${file}: providers.local.baseUrl: "file:///v1" ${NOT_HTTP}`,
    ].map((message) => ({ code: 64, stdout: "", stderr: `turnloop: ${message}\n` })),
  );
  expect(model.requests).toEqual([]);
  expect(existsSync(join(home, "session-state"))).toBe(false);
});
