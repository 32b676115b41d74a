import { mkdir, readdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";
import { hiddenPlaceRefusal } from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";
import { coldCodeCache } from "../support/test-home.js";

// Trial 31, finding 1 (HIGH): the model's `view` read what README's "Sandbox" hides from commands
// "even from reading". `cd ~ && turnloop -p … --autopilot` viewed `.ssh/id_ed25519` and
// `.aws/credentials` without a question (the key then stood in events.jsonl) while `cat` of the
// same file failed in the sandbox; `--allow-all-tools --sandbox workspace-write` in a project
// viewed `~/.ssh/id_ed25519` by its absolute path and listed other sessions' logs in
// `~/.turnloop`. The file tools now keep out of the sandbox's hidden places in every mode and
// policy (src/permissions/hidden-places.ts); only an allow rule naming the place lets a call in.
// Each run: the built CLI under -p on a fake home (HOME, TURNLOOP_HOME=~/.turnloop) in a
// temporary folder, a fake model asking for the calls in one reply; the model's tool results are
// asserted whole.

const sandboxWorks = await requireSandbox();

const KEY =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
const AWS = "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n";

/**
 * A home with an ssh key and config, AWS credentials and an earlier session's log, and nothing
 * else: the fixture's warm code cache (`cache/`, test/support/test-home.ts) is taken out, since
 * the model lists this home as a user's.
 */
async function plantSecrets(home: string): Promise<void> {
  await coldCodeCache(home);
  await mkdir(join(home, ".ssh"));
  await writeFile(join(home, ".ssh", "id_ed25519"), KEY);
  await writeFile(join(home, ".ssh", "config"), "Host build\n  User ci\n");
  await mkdir(join(home, ".aws"));
  await writeFile(join(home, ".aws", "credentials"), AWS);
  await mkdir(join(home, ".turnloop", "session-state", "earlier"), { recursive: true });
  await writeFile(join(home, ".turnloop", "session-state", "earlier", "events.jsonl"), "{}\n");
  await writeFile(join(home, "notes.txt"), "aws_secret_access_key is set in ~/.aws\n");
  await mkdir(join(home, ".notes"));
  await writeFile(join(home, ".notes", "todo.txt"), "rotate the key\n");
}

type Call = [name: string, arguments: Record<string, string>];

/**
 * Runs `-p` in `cwd` with `flags`, the model asking for `calls` in one reply; answers the tool
 * results the model read, in call order, and the session's log as written.
 */
async function run(
  fixtures: Pick<CliFixtures, "cli" | "model" | "home">,
  cwd: string,
  flags: readonly string[],
  calls: readonly Call[],
): Promise<{ results: unknown[]; log: string }> {
  const { cli, model, home } = fixtures;
  const toolCalls = calls.map(([name, args], index) => ({
    id: `call_${index}`,
    name,
    arguments: JSON.stringify(args),
  }));
  // Autopilot goes on until the model calls task_complete.
  const complete = { id: "call_done", name: "task_complete", arguments: '{"summary":"ok"}' };
  model.enqueue(
    { toolCalls },
    flags.includes("--autopilot") ? { toolCalls: [complete] } : { text: "Done." },
  );
  const turnloopHome = join(home, ".turnloop");
  const result = await cli(["-p", "look around", ...flags], {
    cwd,
    env: { TURNLOOP_HOME: turnloopHome },
  });
  expect([result.code, result.stderr.slice(-3000)]).toEqual([0, expect.any(String)]);
  const messages = chatMessages(model, -1);
  const results = toolCalls.map(
    ({ id }) => messages.find((message) => message.tool_call_id === id)?.content,
  );
  const sessionId = printedSessionId(result.stderr);
  const log = await readFile(
    join(turnloopHome, "session-state", sessionId, "events.jsonl"),
    "utf8",
  );
  return { results, log };
}

describe("the file tools keep out of the places the sandbox hides", () => {
  test.skipIf(!sandboxWorks)(
    "cd ~ && turnloop --autopilot: every file tool, and searches skip them",
    async ({ cli, model, home }) => {
      await plantSecrets(home);
      const { results, log } = await run(
        { cli, model, home },
        home,
        ["--autopilot"],
        [
          ["view", { path: ".ssh/id_ed25519" }],
          ["view", { path: ".aws/credentials" }],
          ["view", { path: ".turnloop" }],
          ["grep", { pattern: "PRIVATE KEY|aws_secret", output_mode: "content" }],
          ["glob", { pattern: ".ssh/*" }],
          ["glob", { pattern: ".*/*" }],
          ["create", { path: ".ssh/authorized_keys", file_text: "ssh-ed25519 AAAA x\n" }],
          ["edit", { path: ".aws/credentials", old_str: "[default]", new_str: "[x]" }],
          ["view", { path: "." }],
        ],
      );
      expect(results).toEqual([
        hiddenPlaceRefusal("view", "~/.ssh"),
        hiddenPlaceRefusal("view", "~/.aws"),
        hiddenPlaceRefusal("view", "~/.turnloop"),
        "notes.txt:1:aws_secret_access_key is set in ~/.aws",
        hiddenPlaceRefusal("glob", "~/.ssh"),
        "./.notes/todo.txt",
        hiddenPlaceRefusal("create", "~/.ssh"),
        hiddenPlaceRefusal("edit", "~/.aws"),
        "notes.txt",
      ]);
      expect(log).not.toContain("b3BlbnNzaC1rZXktdjEAAAAA");
      expect(log).not.toContain("wJalrXUtnFEMI");
      expect(await readdir(join(home, ".ssh"))).toEqual(["config", "id_ed25519"]);
    },
  );

  test.skipIf(!sandboxWorks)(
    "--allow-all-tools --sandbox workspace-write in a project: absolute paths, ~ and links",
    async ({ cli, model, home, repository }) => {
      await plantSecrets(home);
      await symlink(join(home, ".ssh"), join(repository, "keys"));
      const flags = ["--allow-all-tools", "--sandbox", "workspace-write"];
      const { results } = await run({ cli, model, home }, repository, flags, [
        ["view", { path: join(home, ".ssh", "id_ed25519") }],
        ["view", { path: "~/.turnloop" }],
        ["view", { path: "keys/id_ed25519" }],
        ["grep", { pattern: "BEGIN", path: "~/.ssh" }],
      ]);
      expect(results).toEqual([
        hiddenPlaceRefusal("view", "~/.ssh"),
        hiddenPlaceRefusal("view", "~/.turnloop"),
        hiddenPlaceRefusal("view", "~/.ssh"),
        hiddenPlaceRefusal("grep", "~/.ssh"),
      ]);
    },
  );

  test("mode ask without a sandbox: refused with the rule that allows it, not asked", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    await plantSecrets(home);
    const flags = ["--allow-tool", "view(~/.ssh/config)", "--allow-tool", "glob"];
    const { results, log } = await run({ cli, model, home }, repository, flags, [
      ["view", { path: "~/.ssh/config" }],
      ["view", { path: "~/.ssh/id_ed25519" }],
      ["glob", { pattern: "*", path: "~/.ssh" }],
      ["view", { path: "~/.aws/credentials" }],
    ]);
    expect(results).toEqual([
      "1. Host build\n2.   User ci",
      hiddenPlaceRefusal("view", "~/.ssh"),
      hiddenPlaceRefusal("glob", "~/.ssh"),
      hiddenPlaceRefusal("view", "~/.aws"),
    ]);
    // The log's tool events, whole: no question asked (no permission.requested), each refusal a
    // `denied` result; by call, since the calls of one reply complete in any order.
    const toolEvents = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: { toolCallId?: string } })
      .filter(({ type }) => type.startsWith("tool.") || type.startsWith("permission."))
      .map(({ type, data }) => ({ type, data }))
      .sort((a, b) => (a.data.toolCallId ?? "").localeCompare(b.data.toolCallId ?? ""));
    const start = (id: string, toolName: string, args: Record<string, string>) => ({
      type: "tool.execution_start",
      data: { toolCallId: id, toolName, arguments: args },
    });
    const denied = (id: string, toolName: string, place: string) => ({
      type: "tool.execution_complete",
      data: {
        toolCallId: id,
        toolName,
        success: false,
        result: { content: hiddenPlaceRefusal(toolName, place) },
        error: { message: hiddenPlaceRefusal(toolName, place), code: "denied" },
      },
    });
    expect(toolEvents).toEqual([
      start("call_0", "view", { path: "~/.ssh/config" }),
      {
        type: "tool.execution_complete",
        data: {
          toolCallId: "call_0",
          toolName: "view",
          success: true,
          result: { content: "1. Host build\n2.   User ci" },
          knownFile: {
            path: join(await realpath(home), ".ssh", "config"),
            sha256: expect.any(String),
          },
        },
      },
      start("call_1", "view", { path: "~/.ssh/id_ed25519" }),
      denied("call_1", "view", "~/.ssh"),
      start("call_2", "glob", { pattern: "*", path: "~/.ssh" }),
      denied("call_2", "glob", "~/.ssh"),
      start("call_3", "view", { path: "~/.aws/credentials" }),
      denied("call_3", "view", "~/.aws"),
    ]);
  });

  test.skipIf(!sandboxWorks)(
    "mode auto in a project: a hidden place is refused, never offered --allow-all-tools",
    async ({ cli, model, home, repository }) => {
      await plantSecrets(home);
      const { results } = await run(
        { cli, model, home },
        repository,
        ["--permission-mode", "auto"],
        [
          ["view", { path: "~/.aws/credentials" }],
          ["view", { path: join(home, "notes.txt") }],
        ],
      );
      expect(results).toEqual([
        hiddenPlaceRefusal("view", "~/.aws"),
        "Permission denied for 'view': no terminal to ask on; rerun with --allow-tool " +
          `'view(${join(home, "notes.txt")})' or --allow-all-tools`,
      ]);
    },
  );
});
