import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 15, #16): ACP `session/new` stores a session at once
// (an editor opening its agent panel), and `--continue` then took that empty session as "the
// newest of this folder": the prompt went to it, without the conversation the user meant to
// continue. `--continue` (-p and interactive) now takes the newest session holding a prompt.

/** What an editor sends when its agent panel opens a thread: a session with no prompt. */
function editorOpening(cwd: string): string {
  return [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } },
  ]
    .map((message) => `${JSON.stringify(message)}\n`)
    .join("");
}

describe("--continue skips a session with no prompt yet", () => {
  test("-p --continue and the interactive --continue take the last conversation, not the editor's empty session", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({ text: "first" }, { text: "second" });
    const first = await cli(["-p", "hi"]);
    const id = printedSessionId(first.stderr);
    const acp = await cli(["acp"], { stdin: editorOpening(repository) });
    const empty = /"sessionId":"([0-9a-f-]{36})"/.exec(acp.stdout)?.[1];
    expect(empty, acp.stdout + acp.stderr).toBeDefined();
    expect(empty).not.toBe(id);
    const continued = await cli(["--continue", "-p", "again"]);
    expect(continued.code, continued.stderr).toBe(0);
    expect(printedSessionId(continued.stderr)).toBe(id);
    expect(JSON.stringify(model.requests.at(-1))).toContain("hi");
    const interactive = await cli(["--continue"], { stdin: "" });
    expect(interactive.code, interactive.stderr).toBe(0);
    expect(printedSessionId(interactive.stdout)).toBe(id);
  });

  test("with only an empty session, --continue says there is none to continue", async ({
    cli,
    repository,
  }) => {
    await cli(["acp"], { stdin: editorOpening(repository) });
    const continued = await cli(["--continue", "-p", "again"]);
    expect(continued).toMatchObject({
      code: 64,
      stderr: `turnloop: no session to continue in ${repository}; run without --continue to start one\n`,
    });
  });
});

// A fresh user's trial (round 3, session 16, #9): `turnloop sessions` printed an empty line for
// such a session; it says `(no prompt yet)` as the pickers and `/sessions` do (one helper).
test("turnloop sessions marks a session with no prompt yet", async ({ cli, repository }) => {
  const acp = await cli(["acp"], { stdin: editorOpening(repository) });
  const empty = /"sessionId":"([0-9a-f-]{36})"/.exec(acp.stdout)?.[1] ?? "";
  const listed = await cli(["sessions"]);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(
    new RegExp(`^${empty}  .*  0 turns  ${repository}\\n    \\(no prompt yet\\)\\n$`),
  );
});

// A trial of session 17's build (round 3, session 18, #8): `turnloop sessions show` of such a
// session printed its start line alone, as if the rest had been lost.
test("turnloop sessions show of a session with no prompt yet says so", async ({
  cli,
  repository,
}) => {
  const acp = await cli(["acp"], { stdin: editorOpening(repository) });
  const empty = /"sessionId":"([0-9a-f-]{36})"/.exec(acp.stdout)?.[1] ?? "";
  const shown = await cli(["sessions", "show", empty]);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toMatch(
    new RegExp(
      `^session ${empty} · openai-compatible:fake-model · ${repository} · started \\S+\\n\\(no prompt yet: nothing was asked in this session\\)\\n$`,
    ),
  );
});
