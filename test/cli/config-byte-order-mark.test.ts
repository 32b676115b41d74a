import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// A JSON file turnloop reads from a user may start with a UTF-8 byte order mark (EF BB BF), as
// Windows PowerShell 5's `Out-File -Encoding utf8` and older Notepad write it: it is read without
// it, as AGENTS.md is. Trial 42 F4: the user's config.json, the project's and a `--mcp-config`
// file were refused as "not valid JSON: line 1, column 1: Unexpected character" (exit 64).

const MARK = "\uFEFF";

test("the user's config, the project's and --mcp-config are read past a leading byte order mark", async ({
  cli,
  home,
  repository,
}) => {
  await writeFile(join(home, "config.json"), `${MARK}{"model":"openai-chat:gpt-4.1"}`);
  await mkdir(join(repository, ".turnloop"), { recursive: true });
  await writeFile(join(repository, ".turnloop", "config.json"), `${MARK}{"maxTurns":7}\n`);
  const servers = join(home, "servers.json");
  await writeFile(servers, `${MARK}{"mcpServers":{"s":{"command":"node","args":["s.mjs"]}}}`);
  const result = await cli(["config", "--json", "--mcp-config", servers], {
    env: { TURNLOOP_MODEL: undefined, TURNLOOP_BASE_URL: undefined },
  });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  const shown = JSON.parse(result.stdout) as Record<string, { value: unknown; source: string }>;
  expect([shown.model, shown.maxTurns, shown.mcpServers]).toEqual([
    {
      value: "openai-chat:gpt-4.1",
      source: join(home, "config.json"),
      resolved: "openai-chat:gpt-4.1",
    },
    { value: 7, source: join(repository, ".turnloop", "config.json") },
    {
      s: {
        value: { type: "stdio", command: "node", args: ["s.mjs"], env: {} },
        source: servers,
      },
    },
  ]);
});
