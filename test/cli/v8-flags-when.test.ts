import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { startHttpServer } from "../support/mcp/servers.js";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Which V8 flags `turnloop -p` sets, and when (issue 26, src/cli/v8-flags.ts): a flag set at run
 * time makes Node compile each of its own modules loaded afterwards from source instead of taking
 * its built-in code cache, so `-p` sets none but the entry's reset, and `--liftoff-only` is set only
 * by the MCP client's HTTP transports, before their first `fetch` loads undici
 * (src/tools/mcp/connection.ts). The built CLI runs a whole prompt with a recorder of the flags
 * set and the built-in modules loaded (test/cli/v8-flag-builtins-recorder.mjs).
 */

const RECORDER = fileURLToPath(new URL("./v8-flag-builtins-recorder.mjs", import.meta.url));
const UNDICI = "NativeModule internal/deps/undici/undici";

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_FLAG_LOG",
  name: "flags",
});

/** The flags set, each with the built-ins loaded after it, and every built-in loaded by exit. */
function recorded(): {
  flags: Array<{ flag: string; builtinsAfter: string[] }>;
  builtins: string[];
} {
  const lines = readFileSync(cli.log, "utf8").split("\n");
  const builtins = lines
    .filter((line) => line.startsWith("builtin "))
    .map((line) => line.slice("builtin ".length));
  const flags = lines
    .filter((line) => line.startsWith("flag "))
    .map((line) => {
      // `flag <flags set, spaces between> <built-ins loaded before them>`
      const count = line.slice(line.lastIndexOf(" ") + 1);
      const flag = line.slice("flag ".length, line.lastIndexOf(" "));
      return { flag, builtinsAfter: builtins.slice(Number(count)) };
    });
  return { flags, builtins };
}

describe("V8 flags of -p (issue 26)", () => {
  test("without an MCP server: the entry's reset and no other flag; undici never loads", async () => {
    cli.server.setResponder(() => ({ text: "All done.", usage: { input: 100, output: 10 } }));
    const result = await runCli(["-p", "say done"], {
      cwd: cli.directory,
      env: cli.environment("openai-chat:gpt-4.1"),
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: "All done.\n",
    });
    const { flags, builtins } = recorded();
    // The reset comes before run.ts loads: the prompt's built-ins (`http` …) load after it.
    expect(flags.map(({ flag }) => flag)).toEqual([
      "--max-semi-space-size=0 --min-semi-space-size=0",
    ]);
    expect(flags[0]?.builtinsAfter).toContain("NativeModule http");
    expect(builtins).not.toContain(UNDICI);
  });

  test("with a Streamable HTTP MCP server: --liftoff-only is set before undici loads, and undici then loads", async () => {
    const http = await startHttpServer();
    try {
      const servers = join(cli.directory, "servers.json");
      writeFileSync(
        servers,
        JSON.stringify({ mcpServers: { web: { type: "http", url: http.url } } }),
      );
      cli.server.setResponder(() => ({ text: "All done.", usage: { input: 100, output: 10 } }));
      const result = await runCli(["-p", "say done", "--mcp-config", servers], {
        cwd: cli.directory,
        env: cli.environment("openai-chat:gpt-4.1"),
      });
      expect({ code: result.code, stdout: result.stdout }).toEqual({
        code: 0,
        stdout: "All done.\n",
      });
      const { flags, builtins } = recorded();
      expect(flags.map(({ flag }) => flag)).toEqual([
        "--max-semi-space-size=0 --min-semi-space-size=0",
        "--liftoff-only",
      ]);
      // undici loads after the flag (the transport's first `fetch`), so the check can fail.
      expect(flags[1]?.builtinsAfter).toContain(UNDICI);
      expect(builtins.filter((name) => name === UNDICI)).toHaveLength(1);
    } finally {
      await http.stop();
    }
  });
});
