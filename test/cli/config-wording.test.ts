import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A trial of session 21's build (round 3, session 22, #3): an invalid value in a config file was
// reported in zod's words ("Too small: expected number to be >=1", "mcpServers.a: Invalid input")
// and a profile's ftp:// base URL was accepted. Each is a plain sentence, exit 64, as for a flag.
const cases: Array<[string, unknown, string]> = [
  ["a number below its least", { maxTurns: 0 }, "maxTurns: must be at least 1, not the number 0"],
  ["a string for a number", { maxTurns: "5" }, 'maxTurns: must be a number, not the string "5"'],
  ["a fraction", { maxTurns: 1.5 }, "maxTurns: must be a whole number, not the fraction 1.5"],
  [
    "an option not offered",
    { permissions: { mode: "yolo" } },
    'permissions.mode: must be one of "ask", "auto", "full-access", not the string "yolo"',
  ],
  [
    "a string for a list",
    { permissions: { deny: "bash" } },
    'permissions.deny: must be a list ([…]), not the string "bash"',
  ],
  [
    "a profile's base URL that is not http(s)",
    { providers: { vllm: { type: "openai-compatible", baseUrl: "ftp://x" } } },
    'providers.vllm.baseUrl: "ftp://x" is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)',
  ],
  [
    "an MCP server with neither command nor url",
    { mcpServers: { a: { cmd: "x" } } },
    'mcpServers.a: needs "command" (stdio) or "url" (http, sse); it has unknown key "cmd"',
  ],
  ["a list for the file", [], "the file: must be an object ({…}), not an array"],
];

test.for(cases)("%s", async ([_name, content, message], { cli, home, model }) => {
  const file = join(home, "config.json");
  await writeFile(file, JSON.stringify(content));
  expect(await cli(["config"])).toEqual({
    code: 64,
    signal: null,
    stdout: "",
    stderr: `turnloop: ${file}: ${message}\n`,
  });
  expect(model.requests).toHaveLength(0);
});
