import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { cleanEnvironment, runCli, whenFileExists } from "../support/cli.js";
import { types as eventTypes } from "../support/event-sequences.js";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

test.override({ git: true });

test.beforeEach(async ({ repository }) => {
  await mkdir(join(repository, "src"));
  await writeFile(
    join(repository, "src", "math.ts"),
    "export function add(a: number, b: number) {\n  return a + b;\n}\n",
  );
  await writeFile(join(repository, "README.md"), "# calc\nA tiny calculator.\n");
});

describe("turnloop -p", () => {
  test("answers a question about a repository by calling tools, and records every turn", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue(
      {
        text: "Let me look.",
        toolCalls: [
          {
            id: "call_1",
            name: "grep",
            arguments: '{"pattern":"function add","output_mode":"files_with_matches"}',
          },
        ],
      },
      { toolCalls: [{ id: "call_2", name: "view", arguments: '{"path":"src/math.ts"}' }] },
      { text: ["`add` in src/math.ts ", "returns a + b."] },
    );
    const result = await cli(["-p", "What does add do?"]);
    expect(result.code).toBe(0);
    // stdout is the final answer alone; the narration and the tool lines are progress on stderr.
    expect(result.stdout).toBe("`add` in src/math.ts returns a + b.\n");
    const progress = result.stderr.trimEnd().split("\n");
    expect(
      progress.slice(0, -1).map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")),
    ).toEqual(["Let me look.", "✓ grep function add (N ms)", "✓ view src/math.ts (N ms)"]);
    expect(progress.at(-1)).toMatch(/^3 turns · 30 in \/ 15 out tokens · \d+\.\d s · session /);
    const sessionId = printedSessionId(result.stderr);
    const types = eventTypes(await loggedEvents(sessionId));
    expect(types.filter((type) => type === "assistant.turn_start")).toHaveLength(
      model.requests.length,
    );
    expect(model.requests).toHaveLength(3);
    // The tool results the model got are the real files' contents.
    const lastRequest = JSON.stringify(model.requests[2]?.body);
    expect(lastRequest).toContain("src/math.ts");
    expect(lastRequest).toContain("return a + b;");
  });

  test("--output-format stream-json prints every event, ephemeral ones too, as JSON lines, then the result", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: ["a", "b"] });
    const result = await cli(["-p", "hi", "--output-format", "stream-json"]);
    expect(result.code).toBe(0);
    const types = result.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      "assistant.message_delta",
      "assistant.message_delta",
      "assistant.message",
      "assistant.usage",
      "assistant.turn_end",
      "session.idle",
      "result",
    ]);
  });

  test("with no model configured, says what to set and exits non-zero without creating a session", async ({
    cli,
    home,
    repository,
  }) => {
    const result = await runCli(["-p", "hi"], {
      cwd: repository,
      env: cleanEnvironment({ TURNLOOP_HOME: home }),
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "turnloop: no model configured. Set --model or TURNLOOP_MODEL to <provider>:<model>, e.g. " +
        "anthropic:claude-sonnet-4-5 (with ANTHROPIC_API_KEY), openai:gpt-5 (with OPENAI_API_KEY), " +
        "ollama:qwen3, or openai-compatible:<model> with --base-url or TURNLOOP_BASE_URL; " +
        `"model" (and "baseUrl") in ${home}/config.json keep it for every run.\n`,
    );
    // A misspelt key (trial 40 F2): the warning, then the same message naming the file's key.
    await writeFile(join(home, "config.json"), '{"modle": "openai-compatible:x"}\n');
    const misspelt = await runCli(["-p", "hi"], {
      cwd: repository,
      env: cleanEnvironment({ TURNLOOP_HOME: home }),
    });
    expect(misspelt.code).toBe(64);
    expect(misspelt.stderr.split("\n").slice(-2)).toEqual([result.stderr.trimEnd(), ""]);
    expect(misspelt.stderr).toMatch(/unknown key "modle" \(did you mean "model"\?\)/);
    const listed = await cli(["sessions"]);
    expect(listed.stdout).toMatch(/No sessions/);
  });

  test("bash is refused without --allow-all-tools, and the model is told why", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"touch created.txt"}' }] },
      { text: "I may not run commands." },
    );
    const result = await cli(["-p", "make a file"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /✗ bash touch created\.txt denied \([\d.]+ (?:ms|s|min)\): Permission denied for 'bash': no terminal to ask on; rerun with --allow-tool 'bash\(touch created\.txt\)' or --allow-all-tools\n/,
    );
    expect(JSON.stringify(model.requests[1]?.body)).toContain("Permission denied for 'bash'");
    expect(existsSync(join(repository, "created.txt"))).toBe(false);
  });

  test("a provider failure is an error: message on stderr, exit 1, session.error in the log", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({
      status: 401,
      body: { error: { message: "invalid api key", type: "authentication_error" } },
    });
    const result = await cli(["-p", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^turnloop: HTTP 401: invalid api key/m);
    const types = eventTypes(await loggedEvents(printedSessionId(result.stderr)));
    // The failed request is a turn that ended failed.
    expect(types).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      "assistant.turn_end",
      "session.error",
    ]);
  });

  test("Ctrl-C cancels the prompt cleanly: exit 130, abort and an interrupted result in the log", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    model.enqueue({
      toolCalls: [
        { id: "call_1", name: "bash", arguments: '{"command":"touch started; sleep 30"}' },
      ],
    });
    const result = await cli(["-p", "wait", "--allow-all-tools"], {
      // Ctrl-C once the command runs (its marker is written), not after a guessed delay.
      onStart: (child) =>
        whenFileExists(join(repository, "started"), child, () => child.kill("SIGINT")),
    });
    expect(result.code).toBe(130);
    const types = eventTypes(await loggedEvents(printedSessionId(result.stderr)));
    expect(types.slice(-4)).toEqual([
      "tool.execution_start",
      "tool.execution_complete",
      "assistant.turn_end",
      "abort",
    ]);
  });
});

test("a reader that closes stdout early cancels the prompt, and the log ends cleanly", async ({
  cli,
  model,
  loggedEvents,
}) => {
  // The answer goes on only once the reader has gone.
  const readerGone = gate();
  model.enqueue({
    text: Array.from({ length: 400 }, (_, index) => `line ${index}\n`),
    pause: { afterEvents: 5, until: readerGone.opened },
  });
  // --verbose streams every reply to stdout as it comes (text mode writes the answer at the end).
  const result = await cli(["-p", "count", "--verbose"], {
    onStart: (child) =>
      child.stdout?.once("data", () => {
        child.stdout?.destroy();
        readerGone.open();
      }),
  });
  expect(result.code).toBe(130);
  const types = eventTypes(await loggedEvents(printedSessionId(result.stderr)));
  expect(types.slice(-4)).toEqual([
    "assistant.turn_start",
    "assistant.message",
    "assistant.turn_end",
    "abort",
  ]);
});

test.for([
  ["unset", {}],
  ["set but empty", { ANTHROPIC_API_KEY: "", TURNLOOP_API_KEY: "" }],
] as const)(
  "a vendor model without its API key (%s) is refused before a session is created",
  async ([_name, keys], { cli, home, repository }) => {
    const result = await runCli(["-p", "hi", "--model", "anthropic:claude-sonnet-4-5"], {
      cwd: repository,
      env: cleanEnvironment({ TURNLOOP_HOME: home, ...keys }),
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      "turnloop: anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY (or TURNLOOP_API_KEY).\n",
    );
    const listed = await cli(["sessions"]);
    expect(listed.stdout).toMatch(/No sessions/);
  },
);

test("API keys never reach events.jsonl or the model, and bash children do not get turnloop's keys", async ({
  cli,
  model,
  home,
}) => {
  const secret = "sk-test-SECRET1234567890";
  const other = "tok-OTHER-SECRET-0987654321";
  model.enqueue(
    {
      toolCalls: [
        {
          id: "call_1",
          name: "bash",
          arguments: JSON.stringify({
            command: 'echo "key=$OPENAI_API_KEY tl=$TURNLOOP_API_KEY other=$DEPLOY_TOKEN"',
          }),
        },
      ],
    },
    { text: "done" },
  );
  // A secret-looking variable is dropped from commands' environment unless kept (README,
  // "Commands the model runs"); a kept one reaches the command, redacted in what the model and
  // the log see. The provider's keys are never in it, kept or not.
  await writeFile(
    join(home, "config.json"),
    JSON.stringify({ shellEnvironment: { keep: ["DEPLOY_TOKEN"] } }),
  );
  const result = await cli(["-p", `is ${secret} set?`, "--allow-all-tools"], {
    env: { OPENAI_API_KEY: secret, TURNLOOP_API_KEY: secret, DEPLOY_TOKEN: other },
  });
  expect(result.code).toBe(0);
  const toolResult = chatMessages(model, -1).find((message) => message.role === "tool");
  expect(toolResult?.content).toBe(
    "key= tl= other=[redacted:DEPLOY_TOKEN]\n<exited with exit code 0>",
  );
  expect(JSON.stringify(model.requests.at(-1)?.body)).not.toContain(secret);
  expect(JSON.stringify(model.requests.at(-1)?.body)).toContain(
    "is [redacted:OPENAI_API_KEY] set?",
  );
  const log = await readFile(
    join(home, "session-state", printedSessionId(result.stderr), "events.jsonl"),
    "utf8",
  );
  expect(log).not.toContain(secret);
  expect(log).not.toContain(other);
  expect(result.stdout).not.toContain(other);
});

describe("editing and running commands", () => {
  const script = (model: FakeModelServer) =>
    model.enqueue(
      {
        toolCalls: [
          {
            id: "call_edit",
            name: "edit",
            arguments: JSON.stringify({ path: "src/math.ts", old_str: "a + b", new_str: "b + a" }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: "call_run",
            name: "bash",
            arguments: '{"command":"grep -c \'b + a\' src/math.ts"}',
          },
        ],
      },
      { text: "Swapped the operands." },
    );

  test("with --allow-all-tools the file is edited and the command runs", async ({
    cli,
    model,
    repository,
  }) => {
    script(model);
    const result = await cli(["-p", "swap the operands", "--allow-all-tools"]);
    expect(result.code).toBe(0);
    expect(await readFile(join(repository, "src", "math.ts"), "utf8")).toBe(
      "export function add(a: number, b: number) {\n  return b + a;\n}\n",
    );
    const toolLines = result.stderr.split("\n").filter((line) => /^[✓✗]/.test(line));
    expect(toolLines.map((line) => line.slice(0, 2))).toEqual(["✓ ", "✓ "]);
    expect(JSON.stringify(model.requests[2]?.body)).toContain("1\\n<exited with exit code 0>");
  });

  test("without it both are refused, the file is untouched, and the model is told why", async ({
    cli,
    model,
    repository,
  }) => {
    script(model);
    const result = await cli(["-p", "swap the operands"]);
    expect(result.code).toBe(0);
    expect(await readFile(join(repository, "src", "math.ts"), "utf8")).toContain("return a + b;");
    const toolLines = result.stderr.split("\n").filter((line) => /^[✓✗]/.test(line));
    expect(toolLines).toHaveLength(2);
    expect(toolLines.every((line) => line.includes("Permission denied"))).toBe(true);
  });

  test("--allow-tool allows exactly the named command", async ({ cli, model }) => {
    script(model);
    const result = await cli([
      "-p",
      "swap",
      "--allow-tool",
      "edit(src/**)",
      "--allow-tool",
      "bash(grep -c *)",
    ]);
    expect(result.code).toBe(0);
    const toolLines = result.stderr.split("\n").filter((line) => /^[✓✗]/.test(line));
    expect(toolLines.map((line) => line.slice(0, 2))).toEqual(["✓ ", "✓ "]);
  });
});

describe("sessions", () => {
  test("are listed, shown, resumed with --resume and continued with --continue", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "The answer is 4." }, { text: "Doubled: 8." }, { text: "Halved: 4." });
    const first = await cli(["-p", "What is 2+2?"]);
    const sessionId = printedSessionId(first.stderr);
    // A unique prefix of the id is enough, as with git hashes.
    const resumed = await cli(["-p", "Double it.", "--resume", sessionId.slice(0, 8)]);
    expect(resumed.code).toBe(0);
    expect(printedSessionId(resumed.stderr)).toBe(sessionId);
    const continued = await cli(["-p", "Halve it.", "--continue"]);
    expect(printedSessionId(continued.stderr)).toBe(sessionId);
    const messages = chatMessages(model, 2) as Array<{ role: string; content: string }>;
    const roles = messages.map(
      (message) => `${message.role}: ${message.role === "system" ? "…" : message.content}`,
    );
    expect(roles).toEqual([
      "system: …",
      "user: What is 2+2?",
      "assistant: The answer is 4.",
      "user: Double it.",
      "assistant: Doubled: 8.",
      "user: Halve it.",
    ]);

    const list = await cli(["sessions"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(sessionId);
    expect(list.stdout).toContain("3 turns");
    expect(list.stdout).toContain("What is 2+2?");

    const show = await cli(["sessions", "show", sessionId.slice(0, 8)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("What is 2+2?");
    expect(show.stdout).toContain("Doubled: 8.");

    const missing = await cli(["-p", "x", "--resume", "00000000-0000-0000-0000-000000000000"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no session/);
  });
});
