import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { autoSandboxStop, toolResultsThroughCli } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";

/*
 * The trial of round 3 session 34 (HIGH 4): in permission mode auto, the model's sandboxed
 * command rewrote `tools/mcp.sh`, which the project's `.mcp.json` runs (`sh tools/mcp.sh`), and
 * the next start ran it outside the sandbox. A file an MCP server of turnloop's config files runs
 * is kept as `.mcp.json` itself is (src/tools/sandbox/server-programs.ts `serverProgramsIn`):
 * sandboxed commands cannot write it, replace it or make it, and auto asks before an edit of it.
 * Real `turnloop -p` children, the real permission gate, real bubblewrap; skipped (and said so)
 * where bubblewrap cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

const WHY =
  "an MCP server config (.mcp.json, .turnloop/config.json, mcp.json) names it, and turnloop runs it when a session starts, outside the sandbox";

describe.runIf(sandboxWorks)("the files MCP servers run", () => {
  test("a sandboxed command cannot change the script .mcp.json runs, and auto asks before an edit of it", async ({
    cli,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "tools"));
    const script = join(repository, "tools", "mcp.sh");
    await writeFile(script, "exec cat >/dev/null\n");
    const servers = { docs: { command: "sh", args: ["tools/mcp.sh"] } };
    await writeFile(join(repository, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
    const real = realpathSync(script);
    const replace = "mv tools tools.old && mkdir tools && echo evil > tools/mcp.sh";
    const { results } = await toolResultsThroughCli(
      { cli, model },
      [
        ["bash", { command: "echo evil >> tools/mcp.sh" }],
        ["bash", { command: replace }],
        ["edit", { path: "tools.old/mcp.sh", old_str: "cat", new_str: "evil" }],
        ["create", { path: "tools/other.sh", file_text: "made\n" }],
      ],
      ["--permission-mode", "auto"],
    );
    expect(results).toEqual([
      "bash: line 1: tools/mcp.sh: Read-only file system\n<exited with exit code 1>\n" +
        autoSandboxStop(
          "echo evil >> tools/mcp.sh",
          `the sandbox keeps ${real} read-only whatever the settings: ${WHY} (Read-only file system)`,
        ),
      `<exited with exit code 0>\n${autoSandboxStop(
        replace,
        `the sandbox keeps ${real} read-only whatever the settings: ${WHY}; it removed ${real}, which the command made`,
      )}`,
      // The script moved away is no server's any more: an ordinary file.
      `File ${join(repository, "tools.old", "mcp.sh")} updated with changes.\n\n` +
        "@@ -1,1 +1,1 @@\n-exec cat >/dev/null\n+exec evil >/dev/null",
      `Created file ${join(repository, "tools", "other.sh")} with 5 characters`,
    ]);
    expect(existsSync(script)).toBe(false);
    expect(await readFile(join(repository, "tools.old", "mcp.sh"), "utf8")).toBe(
      "exec evil >/dev/null\n",
    );
  });

  test("auto asks before an edit of the script, as the user's mcp.json names it too", async ({
    cli,
    home,
    model,
    repository,
  }) => {
    await mkdir(join(repository, "bin"));
    const server = join(repository, "bin", "server.js");
    await writeFile(server, "// the user's own server\n");
    const mine = { mine: { command: "node", args: [server] } };
    await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: mine }));
    const { results } = await toolResultsThroughCli(
      { cli, model },
      [
        ["edit", { path: "bin/server.js", old_str: "own", new_str: "evil" }],
        ["bash", { command: "echo evil > bin/server.js" }],
      ],
      ["--permission-mode", "auto"],
    );
    expect(results).toEqual([
      "Permission denied for 'edit': no terminal to ask on; auto asks about edits of what later " +
        `runs read: ${WHY.replace("names it", "names server.js")}; rerun with --allow-tool 'edit(bin/server.js)'`,
      "bash: line 1: bin/server.js: Read-only file system\n<exited with exit code 1>\n" +
        autoSandboxStop(
          "echo evil > bin/server.js",
          `the sandbox keeps ${realpathSync(server)} read-only whatever the settings: ${WHY} (Read-only file system)`,
        ),
    ]);
    expect(await readFile(server, "utf8")).toBe("// the user's own server\n");
  });
});
