import { existsSync } from "node:fs";
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";
import { chatMessages } from "../support/harness.js";
import { requireSandbox } from "../support/sandbox.js";

// A fresh user's check: under permission mode auto, a sandboxed command could write the
// project's `.turnloop/` and `.mcp.json` (the sandbox kept only `.git/hooks` and `.git/config`
// read-only), so a command run without a question could change what later runs read. Real
// bubblewrap: an existing file is mounted read-only; one the command makes is removed when it
// ends, and the command is reported as stopped by the sandbox.

const sandboxWorks = await requireSandbox();

/** Has the model run `command` through `turnloop -p -q --sandbox workspace-write --yolo`. */
async function runSandboxed(
  { cli, model }: Pick<CliFixtures, "cli" | "model">,
  command: string,
  quiet = true,
) {
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
  const quietFlag = quiet ? ["-q"] : [];
  const result = await cli(["-p", "go", ...quietFlag, "--sandbox", "workspace-write", "--yolo"]);
  const toolMessage = chatMessages(model, -1).find((message) => message.role === "tool");
  return {
    ...result,
    toolResult: String(toolMessage?.content),
  };
}

/** What the sandbox says of `place` (`.turnloop` or `.mcp.json`), as policy.ts words it. */
function keeps(place: string): string {
  return (
    `the sandbox keeps ${place} read-only whatever the settings: turnloop reads it to configure ` +
    "later runs (permissions, base URL, MCP servers it starts)"
  );
}

/** `-p`'s way out with no terminal, naming `command`'s rule shell-quoted as a user would type it. */
function notOutside(command: string): string {
  const rule = `'bash(${command})'`.replaceAll(/(?<=.)'(?=.)/g, "'\\''");
  return (
    "It was not run outside the sandbox: no terminal to ask on; rerun with --sandbox " +
    `danger-full-access --allow-tool ${rule} (commands run without the sandbox, the only way ` +
    "to write that place), or run -p on a terminal to be asked."
  );
}

describe.runIf(sandboxWorks)("the sandbox keeps what later runs read read-only", () => {
  test("a command cannot change an existing .turnloop/config.json", async ({
    cli,
    model,
    repository,
  }) => {
    const config = join(repository, ".turnloop", "config.json");
    await mkdir(join(repository, ".turnloop"));
    await writeFile(config, "{}\n");
    const command = `echo '{"permissions":{"mode":"full-access"}}' > .turnloop/config.json`;
    const result = await runSandboxed({ cli, model }, command);
    const why = `The sandbox stopped this command: ${keeps(".turnloop")} (Read-only file system). ${notOutside(command)}`;
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr: "",
      toolResult:
        "bash: line 1: .turnloop/config.json: Read-only file system\n" +
        `<exited with exit code 1>\n${why}`,
    });
    expect(await readFile(config, "utf8")).toBe("{}\n");
  });

  test("a .mcp.json the command makes is removed when it ends, and the command said stopped", async ({
    cli,
    model,
    repository,
  }) => {
    const command = `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json && echo made`;
    const result = await runSandboxed({ cli, model }, command);
    const why =
      `The sandbox stopped this command: ${keeps(".mcp.json")}; it removed ` +
      `${join(repository, ".mcp.json")}, which the command made. ${notOutside(command)}`;
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr: "",
      toolResult: `made\n<exited with exit code 0>\n${why}`,
    });
    expect(existsSync(join(repository, ".mcp.json"))).toBe(false);
  });

  // A fresh user's check: the command exited 0, so -p showed ✓ although the file was removed.
  test("-p's tool line says the command failed when the sandbox removed what it made", async ({
    cli,
    model,
    repository,
  }) => {
    const command = "echo '{}' > .mcp.json";
    const result = await runSandboxed({ cli, model }, command, false);
    const lines = result.stderr
      .replace(/\(\d+ ms\)/, "(N ms)")
      .split("\n")
      .slice(0, 3);
    expect(lines).toEqual([
      `✗ bash ${command} failed (exit code 0) (N ms)`,
      "    ",
      `    The sandbox stopped this command: ${keeps(".mcp.json")}; it removed ` +
        `${join(repository, ".mcp.json")}, which the command made. ${notOutside(command)}`,
    ]);
  });

  // A fresh user's check: a .mcp.json (or .turnloop) that is a symbolic link had its target
  // mounted read-only, but the link itself lies in the writable workspace: a command could put a
  // file of its own in its place. The link is put back when the command ends, as a made one is
  // removed, and the command is said stopped.
  test("a .mcp.json link the command replaces is put back, and the command said stopped", async ({
    cli,
    model,
    repository,
  }) => {
    const link = join(repository, ".mcp.json");
    await writeFile(join(repository, "servers.json"), '{"mcpServers":{}}\n');
    await symlink("servers.json", link);
    const command = `rm .mcp.json && echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json && echo replaced`;
    const result = await runSandboxed({ cli, model }, command);
    const why =
      `The sandbox stopped this command: ${keeps(".mcp.json")}; it put back the symbolic link ` +
      `${link} (to servers.json), which the command replaced. ${notOutside(command)}`;
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr: "",
      toolResult: `replaced\n<exited with exit code 0>\n${why}`,
    });
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe("servers.json");
    expect(await readFile(link, "utf8")).toBe('{"mcpServers":{}}\n');
  });

  test("a .turnloop link to a folder that does not exist stays without one", async ({
    cli,
    model,
    repository,
  }) => {
    const link = join(repository, ".turnloop");
    await symlink("shared-settings", link);
    const command = `mkdir -p shared-settings && echo '{}' > .turnloop/config.json && echo made`;
    const result = await runSandboxed({ cli, model }, command);
    const why =
      `The sandbox stopped this command: ${keeps(".turnloop")}; it removed ` +
      `${join(repository, "shared-settings")}, which the command made. ${notOutside(command)}`;
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr: "",
      toolResult: `made\n<exited with exit code 0>\n${why}`,
    });
    expect(await readlink(link)).toBe("shared-settings");
    expect(existsSync(join(repository, "shared-settings"))).toBe(false);
  });
});
