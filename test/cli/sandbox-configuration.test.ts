import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { chatMessages, startFakeModelServer } from "../support/fake-model-server.js";
import { type CliFixtures, fakeModelEnvironment, test } from "../support/fixtures.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";
import { makeHome } from "../support/test-home.js";

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

/** `keeps(place)` for two places at once. */
function keepsBoth(): string {
  return (
    "the sandbox keeps .turnloop and .mcp.json read-only whatever the settings: turnloop reads " +
    "them to configure later runs (permissions, base URL, MCP servers it starts)"
  );
}

/** What the sandbox says of a write refused on `entry`, which `place` leads through. */
function keepsLeading(entry: string, place: string, error: string): string {
  return (
    `the sandbox keeps ${entry} read-only whatever the settings: ${place} leads through it, and ` +
    `turnloop reads ${place} to configure later runs (permissions, base URL, MCP servers it ` +
    `starts) (${error})`
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

  // A fresh user's check: the command exited 0, so -p showed ✓ although the file was removed;
  // then "failed (exit code 0)", which reads as a contradiction.
  test("-p's tool line says the command was stopped when the sandbox removed what it made", async ({
    cli,
    model,
    repository,
  }) => {
    const command = "echo '{}' > .mcp.json";
    const result = await runSandboxed({ cli, model }, command, false);
    const lines = result.stderr
      .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
      .split("\n")
      .slice(0, 3);
    expect(lines).toEqual([
      `✗ bash ${command} stopped by the sandbox (N ms)`,
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

// A fresh user's check: with `.turnloop -> cfg/tl` (and `.mcp.json -> cfg/mcp.json`), only
// `cfg/tl` was mounted read-only; `mv cfg cfg.old && mkdir -p cfg/tl` put a new configuration in
// its place, and `turnloop config` no longer listed the project's deny rules. Now every entry of
// the workspace a place leads through is mounted read-only (a mount point cannot be renamed), and
// a link among them that the command retargets is put back.
describe.runIf(sandboxWorks)("what .turnloop and .mcp.json lead through is fixed too", () => {
  /** `.turnloop -> cfg/tl` and `.mcp.json -> cfg/mcp.json`, each with a file of its own. */
  async function linkedConfiguration(repository: string): Promise<void> {
    await mkdir(join(repository, "cfg", "tl"), { recursive: true });
    await writeFile(join(repository, "cfg", "tl", "config.json"), '{"permissions":{}}\n');
    await writeFile(join(repository, "cfg", "mcp.json"), '{"mcpServers":{}}\n');
    await symlink("cfg/tl", join(repository, ".turnloop"));
    await symlink("cfg/mcp.json", join(repository, ".mcp.json"));
  }

  async function unchanged(repository: string): Promise<void> {
    expect(await readFile(join(repository, ".turnloop", "config.json"), "utf8")).toBe(
      '{"permissions":{}}\n',
    );
    expect(await readFile(join(repository, ".mcp.json"), "utf8")).toBe('{"mcpServers":{}}\n');
    expect(existsSync(join(repository, "cfg.old"))).toBe(false);
  }

  // Five commands on one linked configuration, one after another in one `-p` run (the sandbox
  // puts back or refuses each before the next, as it would between runs; a command that changed
  // the configuration would change what the next one sees): one child, not one a case.
  const LINKED_COMMANDS = {
    mv: "mv cfg cfg.old && mkdir -p cfg/tl && echo '{}' > cfg/tl/config.json",
    rm: "rm -rf cfg; mkdir -p cfg/tl; echo '{}' > cfg/tl/config.json",
    both: "ln -sfn elsewhere .turnloop && ln -sfn elsewhere.json .mcp.json && echo done",
    refused: "echo notes > cfg/notes.txt",
    elsewhere: "echo notes > notes.txt && cat notes.txt",
  };
  let linked: { repository: string; results: Record<keyof typeof LINKED_COMMANDS, string> };
  const made: string[] = [];

  beforeAll(async () => {
    const server = await startFakeModelServer();
    try {
      const home = await makeHome("turnloop-linked-home-");
      const repository = await mkdtemp(join(tmpdir(), "turnloop-linked-repo-"));
      made.push(home, repository);
      await linkedConfiguration(repository);
      const names = Object.keys(LINKED_COMMANDS) as Array<keyof typeof LINKED_COMMANDS>;
      server.enqueue(
        ...names.map((name) => ({
          toolCalls: [
            {
              id: name,
              name: "bash",
              arguments: JSON.stringify({ command: LINKED_COMMANDS[name] }),
            },
          ],
        })),
        { text: "Done." },
      );
      const flags = ["-q", "--sandbox", "workspace-write", "--yolo"];
      const result = await runCli(["-p", "go", ...flags], {
        cwd: repository,
        env: fakeModelEnvironment(home, server),
      });
      expect(result).toEqual({ code: 0, signal: null, stdout: "Done.\n", stderr: "" });
      const messages = chatMessages(server, -1);
      const resultOf = (name: string) =>
        String(messages.find((message) => message.tool_call_id === name)?.content);
      linked = {
        repository,
        results: Object.fromEntries(names.map((name) => [name, resultOf(name)])) as Record<
          keyof typeof LINKED_COMMANDS,
          string
        >,
      };
    } finally {
      await server.close();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(made.splice(0).map((folder) => removeTree(folder)));
  });

  test("the check's command: mv cfg away and make a new one", async () => {
    const why = keepsLeading("cfg", ".turnloop", "Device or resource busy");
    expect(linked.results.mv).toBe(
      "mv: cannot move 'cfg' to 'cfg.old': Device or resource busy\n<exited with exit code 1>\n" +
        `The sandbox stopped this command: ${why}. ${notOutside(LINKED_COMMANDS.mv)}`,
    );
    await unchanged(linked.repository);
  });

  test("rm -rf cfg, then a new one", async () => {
    const lines = linked.results.rm.split("\n");
    expect(lines.slice(-2)).toEqual([
      "<exited with exit code 1>",
      `The sandbox stopped this command: ${keepsLeading("cfg", ".turnloop", "Read-only file system")}. ${notOutside(LINKED_COMMANDS.rm)}`,
    ]);
    expect(lines.slice(0, -2).every((line) => line.endsWith(": Read-only file system"))).toBe(true);
    await unchanged(linked.repository);
  });

  test("a link two levels up retargeted is put back", async ({ cli, model, repository }) => {
    // .turnloop -> a/b/tl, a -> real-a: the command points `a` at a folder of its own.
    await mkdir(join(repository, "real-a", "b", "tl"), { recursive: true });
    await writeFile(join(repository, "real-a", "b", "tl", "config.json"), "{}\n");
    await symlink("real-a", join(repository, "a"));
    await symlink("a/b/tl", join(repository, ".turnloop"));
    const command =
      "mkdir -p other/b/tl && echo '{\"x\":1}' > other/b/tl/config.json && ln -sfn other a && echo swapped";
    const result = await runSandboxed({ cli, model }, command);
    const why =
      `The sandbox stopped this command: ${keeps(".turnloop")}; it put back the symbolic link ` +
      `${join(repository, "a")} (to real-a), which the command replaced. ${notOutside(command)}`;
    expect(result.toolResult).toBe(`swapped\n<exited with exit code 0>\n${why}`);
    expect(await readlink(join(repository, "a"))).toBe("real-a");
    expect(await readFile(join(repository, ".turnloop", "config.json"), "utf8")).toBe("{}\n");
  });

  test("both places retargeted at once are both put back, said of them", async () => {
    const { repository } = linked;
    const why =
      `The sandbox stopped this command: ${keepsBoth()}; it put back the symbolic link ` +
      `${join(repository, ".turnloop")} (to cfg/tl), which the command replaced; it put back ` +
      `the symbolic link ${join(repository, ".mcp.json")} (to cfg/mcp.json), which the command ` +
      `replaced. ${notOutside(LINKED_COMMANDS.both)}`;
    expect(linked.results.both).toBe(`done\n<exited with exit code 0>\n${why}`);
    await unchanged(repository);
  });

  // Decided: what a place leads through is read-only as a whole for the command, so a file
  // beside the configuration cannot be written either; the command is told why, and runs
  // outside the sandbox only with the user's yes. Writes elsewhere in the workspace go through.
  test("a write elsewhere in cfg is refused and said so; one outside cfg is not", async () => {
    expect(linked.results.refused).toBe(
      "bash: line 1: cfg/notes.txt: Read-only file system\n<exited with exit code 1>\n" +
        `The sandbox stopped this command: ${keepsLeading("cfg", ".turnloop", "Read-only file system")}. ${notOutside(LINKED_COMMANDS.refused)}`,
    );
    expect(linked.results.elsewhere).toBe("notes\n<exited with exit code 0>");
    await unchanged(linked.repository);
  });
});
