import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { chatMessages, startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { commandsThroughCli, oneCommandThroughCli } from "../support/one-command.js";
import { removeTree } from "../support/remove-tree.js";
import { requireSandbox } from "../support/sandbox.js";
import { makeHome } from "../support/test-home.js";

/**
 * `--sandbox` and `--permission-mode` through `turnloop -p` (issue 23): commands the model runs
 * go through bubblewrap; a sandbox asked for where bubblewrap cannot run is refused (exit 64);
 * `auto` without bubblewrap falls back to asking, said once. The folder outside the workspace is
 * under /var/tmp: the sandbox's /tmp is its own.
 */

let server: FakeModelServer;
let home: string;
let workspace: string;
let outside: string;
const sandboxWorks = await requireSandbox();

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await makeHome("turnloop-sandbox-home-");
  workspace = await mkdtemp(join(tmpdir(), "turnloop-sandbox-workspace-"));
  outside = await mkdtemp(join("/var/tmp", "turnloop-sandbox-outside-"));
});
afterAll(async () => {
  await server.close();
  for (const folder of [home, workspace, outside]) {
    await removeTree(folder);
  }
});

function environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
    ...extra,
  });
}

/** Has the model run `command` once through `turnloop -p` with `flags` (test/support/one-command.ts). */
function runThroughCli(command: string, flags: readonly string[]) {
  return oneCommandThroughCli(server, command, {
    cwd: workspace,
    home,
    flags,
    prompt: "write the files",
  });
}

// A fresh user's trial: without a terminal, a command the sandbox stopped was "not run outside the
// sandbox: that needs the user's agreement, which was not given", though nobody was asked, and no
// flag was named. The reason now says nobody could be asked and which flag lets the sandbox allow
// what the command hit (src/cli/no-terminal-reason.ts), to the model and on -p's tool line; the
// run ends as other refusals under -p do: the model heard why and finished, exit 0.
const NO_TERMINAL = "no terminal to ask on; ";
const OR_TERMINAL = ", or run -p on a terminal to be asked";
/** What a workspace-write command that wrote, or may have written, under /tmp is told (private-temporary.ts). */
const PRIVATE_TEMPORARY_NOTE =
  "Note: in the sandbox each command has its own /tmp, empty when it starts (this machine's " +
  "files and folders under /tmp are not in it) and removed when it ends: anything this command " +
  "wrote there is gone, and no later command can read it. Keep files a later command needs in " +
  "the workspace.";

describe.runIf(sandboxWorks)("turnloop -p --sandbox workspace-write", () => {
  // Each case's workspace-write and read-only commands whose tool results alone are asserted
  // come from one `-p` child per policy (each call's result is judged on its own, each command
  // in a bubblewrap of its own; none writes where another reads).
  const escapedInside = () => join(outside, "confined.txt");
  const escapedNode = () => join(outside, "node.txt");
  const nodeWrite = () => {
    const write = `require("fs").writeFileSync(${JSON.stringify(escapedNode())}, "x")`;
    return `node -e 'try { ${write} } catch (e) { console.error(e.message.split(",")[0]); process.exit(1) }'`;
  };
  const probe = () => `exec 3<>/dev/tcp/127.0.0.1/${new URL(server.url).port} && echo connected`;
  let trial: string;
  let written: Record<(typeof WRITTEN)[number], string>;
  let readOnly: Record<(typeof READ_ONLY)[number], string>;
  /** The workspace-write commands, by name. */
  const WRITTEN = [
    "confined",
    "node",
    "machineTmp",
    "tmpWritten",
    "underTmp",
    "tmpRead",
    "tmpCopied",
    "tmpMentioned",
  ] as const;
  /** The read-only commands, by name. */
  const READ_ONLY = ["kept", "network", "temporary"] as const;
  /** The results of `commands` (name → command) from one `-p` child with `flags`, by name. */
  async function resultsOf<Name extends string>(
    names: readonly Name[],
    commands: Record<Name, string>,
    flags: string[],
  ): Promise<Record<Name, string>> {
    const results = await commandsThroughCli(
      server,
      names.map((name) => commands[name]),
      { cwd: workspace, home, flags },
    );
    return Object.fromEntries(names.map((name, index) => [name, results[index]])) as Record<
      Name,
      string
    >;
  }
  beforeAll(async () => {
    trial = await mkdtemp(join("/tmp", "turnloop-sandbox-trial-"));
    await mkdir(join(trial, "home"));
    await writeFile(join(trial, "home", "notes.txt"), "kept\n");
    written = await resultsOf(
      WRITTEN,
      {
        confined: `echo in > inside.txt && echo out > ${escapedInside()}`,
        node: nodeWrite(),
        machineTmp: `echo pwned > ${trial}/outside.txt`,
        tmpWritten: "echo scratch > /tmp/notes.txt && cat /tmp/notes.txt",
        underTmp: `echo x > ${join(workspace, "under-tmp.txt")}`,
        tmpRead: `ls ${trial}/home`,
        tmpCopied: `ls ${trial}/home > /tmp/listing.txt`,
        tmpMentioned: 'echo "logs go to /tmp"',
      },
      ["--sandbox", "workspace-write", "--yolo"],
    );
    readOnly = await resultsOf(
      READ_ONLY,
      {
        kept: "echo in > kept-out.txt",
        network: probe(),
        temporary: 'f=$(mktemp) && echo x > "$f"',
      },
      ["--sandbox", "read-only", "--yolo"],
    );
  });
  afterAll(async () => {
    await removeTree(trial);
  });

  test("unconfined, the command writes outside the workspace (the test can fail)", async () => {
    const escaped = join(outside, "unconfined.txt");
    const result = await runThroughCli(`echo out > ${escaped}`, ["--allow-all-tools"]);
    expect(result.toolResult).toBe("<exited with exit code 0>");
    expect(existsSync(escaped)).toBe(true);
  });

  test("the command writes inside the workspace and not outside; the model is told why", () => {
    const escaped = escapedInside();
    expect(written.confined).toBe(
      `bash: line 1: ${escaped}: Read-only file system\n<exited with exit code 1>\n` +
        "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
        `(Read-only file system). It was not run outside the sandbox: ${NO_TERMINAL}rerun with ` +
        `--add-dir <folder> (sandboxed commands may write there too)${OR_TERMINAL}.`,
    );
    expect(existsSync(join(workspace, "inside.txt"))).toBe(true);
    expect(existsSync(escaped)).toBe(false);
  });

  test("-p prints why a stopped command was not run outside and the flag that allows it; exit 0 as for other refusals", async () => {
    // A short path, so the tool line shows the whole command.
    const escaped = "/var/printed.txt";
    const result = await runThroughCli(`echo out > ${escaped}`, [
      "--sandbox",
      "workspace-write",
      "--yolo",
    ]);
    const why =
      "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
      `(Read-only file system). It was not run outside the sandbox: ${NO_TERMINAL}rerun with ` +
      `--add-dir <folder> (sandboxed commands may write there too)${OR_TERMINAL}.`;
    expect({
      ...result,
      stderr: result.stderr
        .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
        .replace(/· [\d.]+ s · session \S+/, "· session ID"),
    }).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr:
        `✗ bash echo out > ${escaped} failed (exit code 1) (N ms)\n` +
        `    bash: line 1: ${escaped}: Read-only file system\n` +
        `    ${why}\n` +
        "2 turns · 1 call refused · 20 in / 10 out tokens · session ID\n",
      toolResult: `bash: line 1: ${escaped}: Read-only file system\n<exited with exit code 1>\n${why}`,
    });
    expect(existsSync(escaped)).toBe(false);
  });

  // Trial 47 F5: a CI gate on `.permission_denials == []` passed such a run.
  test("json: the commands the sandbox stopped and nobody allowed outside are in permission_denials", async () => {
    const commands = [`echo out > ${join(outside, "denied.txt")}`, probe(), "echo fine"];
    server.enqueue(
      {
        toolCalls: commands.map((command, index) => ({
          id: `call_${index + 1}`,
          name: "bash",
          arguments: JSON.stringify({ command }),
        })),
      },
      { text: "Done." },
    );
    const result = await runCli(
      ["-p", "write", "--sandbox", "workspace-write", "--yolo", "--output-format", "json"],
      { cwd: workspace, env: environment() },
    );
    const { subtype, permission_denials } = JSON.parse(result.stdout) as Record<string, unknown>;
    expect({ code: result.code, subtype, permission_denials }).toEqual({
      ...{ code: 0, subtype: "success" },
      permission_denials: commands.slice(0, 2).map((command, index) => ({
        tool_name: "bash",
        tool_use_id: `call_${index + 1}`,
        tool_input: { command },
      })),
    });
  });

  // A fresh user's check: Node words it `EROFS: read-only file system` (npm's cache in ~/.npm),
  // which the sandbox did not know, so the command ended with no note and no flag.
  test("Node's EROFS outside the workspace is known as the sandbox's, with the same way out", () => {
    const escaped = escapedNode();
    expect(written.node).toBe(
      "EROFS: read-only file system\n<exited with exit code 1>\n" +
        "The sandbox stopped this command: the sandbox lets it write only inside the workspace " +
        `(EROFS). It was not run outside the sandbox: ${NO_TERMINAL}rerun with ` +
        `--add-dir <folder> (sandboxed commands may write there too)${OR_TERMINAL}.`,
    );
    expect(existsSync(escaped)).toBe(false);
  });

  test("read-only: a write inside the workspace is stopped too, and the reason names the policy", () => {
    expect(readOnly.kept).toBe(
      "bash: line 1: kept-out.txt: Read-only file system\n<exited with exit code 1>\n" +
        "The sandbox stopped this command: the read-only sandbox lets it write only its private " +
        `/tmp (Read-only file system). It was not run outside the sandbox: ${NO_TERMINAL}rerun ` +
        "with --sandbox workspace-write (sandboxed commands may write in the workspace and " +
        `--add-dir folders)${OR_TERMINAL}.`,
    );
    expect(existsSync(join(workspace, "kept-out.txt"))).toBe(false);
  });

  // A fresh user's trial: files a command wrote to /tmp were gone for the next command, and
  // nothing said so. The result now tells the model, worded for the policy; a workspace that
  // lives under /tmp is mounted again over the private one, so a path in it gets no note.
  test("a command that uses /tmp is told that its /tmp is its own and is gone now", async () => {
    const kept =
      "Note: in the sandbox each command has its own /tmp, empty when it starts (this machine's files and folders under /tmp are not in it) and removed when it ends: anything this command wrote there is gone, and no later command can read it.";
    expect(workspace.startsWith("/tmp/")).toBe(true);
    expect(written.tmpWritten).toBe(
      `scratch\n<exited with exit code 0>\n${kept} Keep files a later command needs in the workspace.`,
    );
    expect(written.underTmp).toBe("<exited with exit code 0>");
    expect(readOnly.temporary).toBe(
      `<exited with exit code 0>\n${kept} Under the read-only sandbox nothing else is writable, so do such work within one command (e.g. \`a && b\`).`,
    );
    // Unconfined, /tmp is the real one: no note.
    const unconfined = await runThroughCli("echo x > /tmp/turnloop-edges-unconfined.txt", [
      "--yolo",
    ]);
    expect(unconfined.toolResult).toBe("<exited with exit code 0>");
  });

  // Session 29's trial: `ls /tmp/trial/home`, a folder of the machine's /tmp outside the
  // workspace, was told "what this command wrote there is gone" though it wrote nothing. A command
  // that only reads is told that the sandbox's /tmp is its own, so the machine's files there are
  // not visible; one that also writes there keeps the note on what it wrote. Session 35's trial:
  // one that merely mentions /tmp (`echo "see /tmp"`) was told too; it is told nothing now.
  test("a command that only reads under /tmp is told the machine's /tmp is not visible", () => {
    const { tmpRead: read, tmpCopied: copied, tmpMentioned: mentioned } = written;
    expect(mentioned).toBe("logs go to /tmp\n<exited with exit code 0>");
    expect(read).toBe(
      `ls: cannot access '${trial}/home': No such file or directory\n<exited with exit code 2>\n` +
        "Note: in the sandbox /tmp outside the workspace is the command's own, empty /tmp, not " +
        "this machine's: files there are not visible to sandboxed commands. To read them, the " +
        "user can add their folder with --add-dir <folder> or put them in the workspace.",
    );
    expect(copied).toBe(
      `ls: cannot access '${trial}/home': No such file or directory\n<exited with exit code 2>\n` +
        PRIVATE_TEMPORARY_NOTE,
    );
  });

  // Trial 31: a write into a folder of the machine's /tmp fails (that folder is not in the
  // private /tmp), and the note said "what this command wrote there is gone" of a write that
  // never happened. The note is true either way now, and says why the folder is missing.
  test("a write into a folder of the machine's /tmp fails, and its note claims no write", () => {
    expect(written.machineTmp).toBe(
      `bash: line 1: ${trial}/outside.txt: No such file or directory\n<exited with exit code 1>\n` +
        PRIVATE_TEMPORARY_NOTE,
    );
    expect(existsSync(join(trial, "outside.txt"))).toBe(false);
  });

  test("the network is off unless --sandbox-network", async () => {
    const port = new URL(server.url).port;
    const command = probe();
    expect(readOnly.network).toBe(
      `bash: connect: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/${port}: Connection refused\n` +
        "<exited with exit code 1>\n" +
        "The sandbox stopped this command: the sandbox has no network (Connection refused). It " +
        `was not run outside the sandbox: ${NO_TERMINAL}rerun with --sandbox-network or ` +
        "sandbox.network: true in a config file " +
        `(sandboxed commands may use the network)${OR_TERMINAL}.`,
    );
    const on = await runThroughCli(command, [
      "--sandbox",
      "read-only",
      "--sandbox-network",
      "--yolo",
    ]);
    expect(on.toolResult).toBe("connected\n<exited with exit code 0>");
  });

  test("turnloop config shows the policy, its source and that bubblewrap works", async () => {
    const result = await runCli(["config", "--json", "--autopilot"], {
      cwd: workspace,
      env: environment(),
    });
    const shown = JSON.parse(result.stdout) as Record<string, unknown>;
    expect([shown.permissionMode, shown.sandbox]).toEqual([
      { value: "auto", source: "--autopilot" },
      {
        policy: { value: "workspace-write", source: "default in permission mode auto" },
        network: { value: false, source: "default", applies: true },
        unixSockets: { value: false, source: "default", applies: true },
        tmpfsSizeMiB: { value: 1024, source: "default", applies: true },
        hidden: [],
        availability: { available: true },
      },
    ]);
  });
});

describe("where bubblewrap cannot run", () => {
  const noBubblewrap = { PATH: join(home ?? "/nonexistent", "no-such-folder") };

  test("--sandbox workspace-write is refused with the reason and how to install it (exit 64)", async () => {
    const requestsBefore = server.requests.length;
    const result = await runCli(["-p", "hi", "--sandbox", "workspace-write"], {
      cwd: workspace,
      env: environment(noBubblewrap),
    });
    expect([result.code, result.stdout, result.stderr]).toEqual([
      64,
      "",
      "turnloop: --sandbox workspace-write cannot be honoured: bubblewrap (bwrap) is not " +
        "installed, so commands cannot run in a sandbox. Install it: apt-get install bubblewrap.\n",
    ]);
    expect(server.requests.length).toBe(requestsBefore);
  });
});

describe("turnloop config where bubblewrap cannot run", () => {
  test("danger-full-access: the network setting is not applicable, and how to install bubblewrap is shown", async () => {
    const result = await runCli(["config"], {
      cwd: workspace,
      env: environment({ PATH: join(home, "no-such-folder") }),
    });
    const rows = result.stdout.split("\n").filter((line) => line.startsWith("sandbox"));
    expect([result.code, ...rows]).toEqual([
      0,
      `${"sandbox.policy".padEnd(24)} danger-full-access    from default`,
      `${"sandbox.network".padEnd(24)} not applicable (no sandbox under danger-full-access: commands have the network)`,
      `${"sandbox".padEnd(24)} unavailable: bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox. Install it: apt-get install bubblewrap.`,
    ]);
  });
});

describe("permission mode auto where bubblewrap cannot run", () => {
  test("--autopilot says so once and asks about commands (refused here: no terminal)", async () => {
    const noBubblewrap = { PATH: join(home, "no-such-folder") };
    server.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }] },
      { toolCalls: [{ id: "call_2", name: "task_complete", arguments: '{"summary":"no"}' }] },
    );
    const result = await runCli(["-p", "say hi", "--autopilot"], {
      cwd: workspace,
      env: environment(noBubblewrap),
    });
    const warnings = result.stderr.split("\n").filter((line) => line.includes("warning"));
    expect(warnings).toEqual([
      "turnloop: warning: permission mode auto asks about commands and edits, since no sandbox " +
        "can run: bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox. " +
        "Install it: apt-get install bubblewrap.",
    ]);
    const toolMessage = chatMessages(server, -1).find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe(
      "Permission denied for 'bash': no terminal to ask on; auto asks since no sandbox can run " +
        "here; rerun with --allow-tool 'bash(echo hi)' or --allow-all-tools",
    );
  });
});
