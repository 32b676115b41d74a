import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ConfigError, loadConfig } from "../../src/session/config.js";
import { readServersFile } from "../../src/tools/mcp/config.js";
import { type CliFixtures, test } from "../support/fixtures.js";
import { stdioEntry } from "../support/mcp/servers.js";
import { removeTree } from "../support/remove-tree.js";

// Session 26's trial: a misspelt key inside an MCP server entry (`"comand"`) was silent, in a
// config file, an `--mcp-config` file and a project's `.mcp.json`; and a value of the wrong type
// was said in zod's words (`✖ Invalid input → at env`). README "Config files": an unknown key is
// a warning naming the closest known key; an invalid value reads like every other key's. Through
// the built CLI, with the MCP test server as the servers that start.

describe("MCP server entries' keys", () => {
  test("an unknown key is a warning naming the closest key, from every file, in -p and mcp list", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    const user = join(home, "config.json");
    const project = join(repository, ".mcp.json");
    const named = join(repository, "extra.json");
    await writeFile(user, JSON.stringify({ mcpServers: { a: { ...stdioEntry(), comand: "x" } } }));
    await writeFile(project, JSON.stringify({ mcpServers: { b: { ...stdioEntry(), arg: [] } } }));
    await writeFile(
      named,
      JSON.stringify({
        mcpServers: { c: { ...stdioEntry(), timout: 5000, url: "http://127.0.0.1:1/mcp" } },
      }),
    );
    expect((await cli(["mcp", "trust"])).code).toBe(0);
    const warnings =
      `turnloop: warning: MCP config: ${user}: server "a": unknown key "comand" (did you mean "command"?) ignored\n` +
      `turnloop: warning: MCP config: ${project}: server "b": unknown key "arg" (did you mean "args"?) ignored\n` +
      `turnloop: warning: MCP config: ${named}: server "c": unknown key "timout" (did you mean "timeout"?) ignored\n` +
      `turnloop: warning: MCP config: ${named}: server "c": "url" ignored: a server with "command" is a stdio server\n`;
    const listed = await cli(["mcp", "list", "--mcp-config", "extra.json"]);
    expect({ ...listed, stdout: listed.stdout.replace(/\d+ tools/g, "N tools") }).toEqual({
      code: 0,
      signal: null,
      stdout:
        "a  stdio  connected  N tools\nb  stdio  connected  N tools\nc  stdio  connected  N tools\n",
      stderr: warnings,
    });
    model.enqueue({ text: "went on" });
    expect(await cli(["-p", "hi", "--quiet", "--mcp-config", "extra.json"])).toEqual({
      code: 0,
      signal: null,
      stdout: "went on\n",
      stderr: warnings,
    });
  });

  test("an entry with neither command nor url names its misspelt key", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(
      join(repository, "servers.json"),
      JSON.stringify({ mcpServers: { s: { comand: "node", args: [] } } }),
    );
    expect(await cli(["-p", "hi", "--mcp-config", "servers.json"])).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${join(repository, "servers.json")}: server "s": needs "command" (stdio) or "url" (http, sse); it has unknown key "comand" (did you mean "command"?)\n`,
    });
    expect(model.requests).toHaveLength(0);
  });
});

describe("MCP server entries' values", () => {
  const cases: Array<[string, unknown, string]> = [
    [
      "a string for a list",
      { command: "node", args: "-y" },
      'args must be a list ([…]), not the string "-y"',
    ],
    [
      "a string for the environment",
      { command: "node", env: "A=1" },
      'env must be an object of strings ({"NAME": "value"}), not the string "A=1"',
    ],
    [
      "a number in the environment",
      { command: "node", env: { A: 1 } },
      "env.A must be a string, not the number 1",
    ],
    [
      "a number in the arguments",
      { command: "node", args: ["-y", 2] },
      "args[1] must be a string, not the number 2",
    ],
    [
      "a timeout below 1",
      { command: "node", timeout: 0 },
      "timeout must be more than 0, not the number 0",
    ],
    [
      "a fraction for a timeout",
      { url: "http://127.0.0.1:1/mcp", timeout: 1.5 },
      "timeout must be a whole number, not the fraction 1.5",
    ],
    [
      "an unknown type",
      { url: "http://127.0.0.1:1/mcp", type: "websocket" },
      'type must be one of "http", "streamable-http", "streamableHttp", "sse", not the string "websocket"',
    ],
  ];

  /** The CLI's way out of an invalid entry in `named` (`--mcp-config`) and in the user's file. */
  async function bothFilesRefused(
    { cli, home, repository }: Pick<CliFixtures, "cli" | "home" | "repository">,
    entry: unknown,
  ) {
    const named = join(repository, "servers.json");
    await writeFile(named, JSON.stringify({ mcpServers: { s: entry } }));
    const fromNamed = await cli(["-p", "hi", "--mcp-config", "servers.json"]);
    const user = join(home, "config.json");
    await writeFile(user, JSON.stringify({ mcpServers: { s: entry } }));
    return { named, user, fromNamed, fromUser: await cli(["-p", "hi"]) };
  }

  // One end to end run per file: the exit code and the exact stderr a user sees. The words of
  // every other case come from the same two readers the CLI calls (src/session/face-config.ts:
  // readServersFile for --mcp-config, loadConfig for the config files), called in-process below:
  // a case whose words were zod's again fails there as it failed here.
  test("a string for a list: exit 64 and the sentence, from an --mcp-config file and a config file", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    const [, entry, sentence] = cases[0] ?? [];
    const { named, user, fromNamed, fromUser } = await bothFilesRefused(
      { cli, home, repository },
      entry,
    );
    expect(fromNamed).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${named}: server "s": ${sentence}\n`,
    });
    expect(fromUser).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr: `turnloop: ${user}: mcpServers.s: ${sentence}\n`,
    });
    expect(model.requests).toHaveLength(0);
  });

  test.for(cases)(
    "%s: in an --mcp-config file and in a config file, in the config files' words",
    async ([_name, entry, sentence]) => {
      const folder = await mkdtemp(join(tmpdir(), "turnloop-mcp-words-"));
      try {
        const named = join(folder, "servers.json");
        await writeFile(named, JSON.stringify({ mcpServers: { s: entry } }));
        expect((await readServersFile(named, { named: true })).problems).toEqual([
          `${named}: server "s": ${sentence}`,
        ]);
        // The folder is the home and the cwd: its config.json is the user's file.
        const user = join(folder, "config.json");
        await writeFile(user, JSON.stringify({ mcpServers: { s: entry } }));
        expect(() => loadConfig(folder, folder)).toThrow(
          new ConfigError(`${user}: mcpServers.s: ${sentence}`),
        );
      } finally {
        await removeTree(folder);
      }
    },
  );
});
