import { execFileSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { NO_TERMINAL_DEFAULTS } from "../../src/session/command-environment.js";
import { ChildFixture } from "./child-process.js";
import { requestMessages } from "./support.js";

// Commands run in the ACP client's terminal (`terminal/create`) got pagers off but not the editor
// defaults a local command gets (src/session/command-environment.ts): `git commit` without `-m`
// opened vim in the editor's terminal, with nobody to type, until the command's timeout. The
// agent is a real `turnloop acp` child; the client runs its terminals as real processes, starting
// from an editor-like environment (TERM set, no editor variables), and the command is a real
// `git commit` without `-m`.

const fixture = ChildFixture.forEachTest();

/** What an editor's terminal starts from: a terminal type, a git identity, no editor variables. */
function editorEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: fixture.home,
    TERM: "xterm-256color",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test User",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test User",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
}

/**
 * Runs `git commit --allow-empty` (no `-m`) through a client terminal of an agent started with
 * `agentEnvironment`: the `env` of its `terminal/create` and the tool result the model read.
 */
async function commitWithoutMessage(
  agentEnvironment: NodeJS.ProcessEnv = {},
  terminalEnvironment: NodeJS.ProcessEnv = {},
) {
  execFileSync("git", ["init", "-q"], { cwd: fixture.cwd, env: editorEnvironment() });
  const command = { command: "git commit --allow-empty", timeout: 5 };
  fixture.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify(command) }] },
    { text: "Done." },
  );
  const agent = fixture.startAgent(agentEnvironment);
  agent.behaviour.terminalEnvironment = { ...editorEnvironment(), ...terminalEnvironment };
  await agent.initialize({ terminal: true });
  const sessionId = await agent.newSession();
  expect(await agent.prompt(sessionId, "commit")).toEqual({ stopReason: "end_turn" });
  const created = agent.behaviour.calls.filter((call) => call.method === "terminal/create");
  const env = created.map((call) => (call.params as { env?: unknown }).env);
  const result = requestMessages(fixture.server, 1).at(-1);
  return { env, result };
}

function commitSubjects(): string {
  try {
    return execFileSync("git", ["log", "--format=%s"], { cwd: fixture.cwd, encoding: "utf8" });
  } catch {
    return "(no commits)";
  }
}

describe("a command in the ACP client's terminal", () => {
  test("gets the editor defaults: git commit without -m fails at once with git's own error", async () => {
    const { env, result } = await commitWithoutMessage();
    const editor = NO_TERMINAL_DEFAULTS.GIT_EDITOR;
    expect(result).toEqual({
      role: "tool",
      tool_call_id: "call_1",
      content:
        "turnloop: no editor here (no terminal, stdin closed): give the text in the command, e.g. git commit -m\n" +
        `error: There was a problem with the editor '${editor}'.\n` +
        "Please supply the message using either -m or -F option.\n" +
        "<exited with exit code 1>",
    });
    // The editor variables go through the command, which sets those the terminal lacks.
    expect(env).toEqual([
      [
        { name: "PAGER", value: "cat" },
        { name: "GIT_PAGER", value: "cat" },
        { name: "GIT_TERMINAL_PROMPT", value: "0" },
        { name: "TURNLOOP_NO_EDITOR", value: editor },
      ],
    ]);
    expect(commitSubjects()).toBe("(no commits)");
  });

  test("keeps an editor the user set in the agent's environment, as a local command does", async () => {
    const script = join(fixture.home, "write-message.sh");
    await writeFile(script, `#!/bin/sh\necho "Message from the user's editor" > "$1"\n`);
    await chmod(script, 0o755);
    const { env, result } = await commitWithoutMessage({ GIT_EDITOR: script });
    const editor = NO_TERMINAL_DEFAULTS.EDITOR;
    expect(String(result?.content)).toMatch(
      /^\[\S+ \(root-commit\) [0-9a-f]+\] Message from the user's editor\n<exited with exit code 0>$/,
    );
    expect(env).toEqual([
      [
        { name: "PAGER", value: "cat" },
        { name: "GIT_PAGER", value: "cat" },
        { name: "GIT_EDITOR", value: script },
        { name: "GIT_TERMINAL_PROMPT", value: "0" },
        { name: "TURNLOOP_NO_EDITOR", value: editor },
      ],
    ]);
    expect(commitSubjects()).toBe("Message from the user's editor\n");
  });

  test("keeps an editor the client's terminal sets, which turnloop's environment does not (session 24)", async () => {
    const script = join(fixture.home, "editor-of-the-terminal.sh");
    await writeFile(script, `#!/bin/sh\necho "Message from the terminal's editor" > "$1"\n`);
    await chmod(script, 0o755);
    const { result } = await commitWithoutMessage({}, { GIT_EDITOR: script });
    expect(String(result?.content)).toMatch(
      /^\[\S+ \(root-commit\) [0-9a-f]+\] Message from the terminal's editor\n<exited with exit code 0>$/,
    );
    expect(commitSubjects()).toBe("Message from the terminal's editor\n");
  });
});
