import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { chatMessages } from "../support/harness.js";

// stdin, output formats and usage errors of `turnloop -p`, as a child process.

let server: FakeModelServer;
let home: string;
let repository: string;

beforeEach(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-io-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-io-repo-"));
  execFileSync("git", ["init", "-q"], { cwd: repository });
});

afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  return cleanEnvironment({
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${server.url}/v1`,
  });
}

function lastUserMessage(index = 0): string {
  const messages = chatMessages(server, index).filter((message) => message.role === "user");
  return String(messages.at(-1)?.content);
}

describe("stdin", () => {
  test("piped text is sent with the prompt as an attachment block", async () => {
    server.enqueue({ text: "It is a null pointer." });
    const log = "Error: boom\n    at main (app.js:3)\n";
    const result = await runCli(["-p", "explain"], {
      cwd: repository,
      env: environment(),
      stdin: log,
    });
    expect(result.code).toBe(0);
    expect(lastUserMessage()).toBe(
      `explain\n\n<attachment source="stdin" bytes="${log.length}">\n${log}</attachment>`,
    );
  });

  test("piped text past 100 KiB keeps its head and tail with a note of what was cut", async () => {
    server.enqueue({ text: "ok" });
    const piped = `HEAD${"x".repeat(200_000)}TAIL\n`;
    const result = await runCli(["-p", "summarise"], {
      cwd: repository,
      env: environment(),
      stdin: piped,
    });
    expect(result.code).toBe(0);
    const sent = lastUserMessage();
    expect(sent).toContain(`<attachment source="stdin" bytes="${piped.length}">\nHEAD`);
    expect(sent).toContain(
      `[… ${piped.length - 102_400} bytes of the piped input cut here; it had ${piped.length} bytes …]`,
    );
    expect(sent).toContain("TAIL\n</attachment>");
    expect(sent.length).toBeLessThan(103_000);
  });

  test("binary data on stdin is refused with a clear message and exit 64; nothing is sent", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const attached = await runCli(["-p", "describe this"], {
      cwd: repository,
      env: environment(),
      stdin: png,
    });
    const asPrompt = await runCli(["-p", "-"], {
      cwd: repository,
      env: environment(),
      stdin: Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x41]),
    });
    expect(
      [attached, asPrompt].map(({ code, stdout, stderr }) => ({ code, stdout, stderr })),
    ).toEqual([
      {
        code: 64,
        stdout: "",
        stderr:
          "turnloop: stdin is binary data (image/png), not text; nothing was sent. Pipe text, or name the file in the prompt for the model to view.\n",
      },
      {
        code: 64,
        stdout: "",
        stderr:
          "turnloop: stdin is binary data, not text; nothing was sent. Pipe text, or name the file in the prompt for the model to view.\n",
      },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  test("-p - and -p without text read the prompt from stdin", async () => {
    server.enqueue({ text: "one" }, { text: "two" });
    const dash = await runCli(["-p", "-"], {
      cwd: repository,
      env: environment(),
      stdin: "What is 2+2?\n",
    });
    expect(dash.code).toBe(0);
    expect(lastUserMessage(0)).toBe("What is 2+2?");
    const bare = await runCli(["--output-format", "json", "-p"], {
      cwd: repository,
      env: environment(),
      stdin: "And 3+3?",
    });
    expect(bare.code).toBe(0);
    expect(lastUserMessage(1)).toBe("And 3+3?");
    const empty = await runCli(["-p", "-"], { cwd: repository, env: environment() });
    expect(empty.code).toBe(64);
    expect(empty.stderr).toBe("turnloop: -p - reads the prompt from stdin, but stdin was empty\n");
    expect(server.requests).toHaveLength(2);
  });
});

describe("output", () => {
  test("--output-format json prints one result object shaped like claude -p's", async () => {
    server.enqueue(
      {
        text: "Looking.",
        toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }],
      },
      { text: ["The answer ", "is 42."] },
    );
    const result = await runCli(["-p", "hi", "--output-format", "json"], {
      cwd: repository,
      env: environment(),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(parsed).toEqual({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "The answer is 42.",
      stop_reason: "end_turn",
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      num_turns: 2,
      duration_ms: expect.any(Number),
      usage: { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 0 },
    });
    expect(existsSync(join(home, "session-state", String(parsed.session_id), "events.jsonl"))).toBe(
      true,
    );
  });

  test("a failed prompt's result says is_error with the error", async () => {
    server.enqueue({ status: 400, body: { error: { message: "bad request body" } } });
    const result = await runCli(["-p", "hi", "--output-format", "json"], {
      cwd: repository,
      env: environment(),
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      stop_reason: null,
      error: { type: "invalid_request", message: expect.stringContaining("bad request body") },
    });
  });

  test("--quiet prints only the final answer, no narration, tool lines or summary", async () => {
    server.enqueue(
      {
        text: "Let me look.",
        toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }],
      },
      { text: "Final answer." },
    );
    const result = await runCli(["-p", "hi", "--quiet"], { cwd: repository, env: environment() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Final answer.\n");
    expect(result.stderr).toBe("");
    server.enqueue({ status: 401, body: { error: { message: "bad key" } } });
    const failed = await runCli(["-p", "hi", "-q"], { cwd: repository, env: environment() });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/^error: HTTP 401: .*bad key.*\n$/);
  });
});

describe("usage errors", () => {
  test("a --cwd that does not exist or is not a folder: exit 64 with the path, nothing created", async () => {
    const missing = join(repository, "no", "such", "dir");
    server.enqueue({
      toolCalls: [{ id: "call_1", name: "create", arguments: '{"path":"a.txt","file_text":"x"}' }],
    });
    const result = await runCli(["-p", "make a file", "--cwd", missing, "--allow-all-tools"], {
      cwd: repository,
      env: environment(),
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(`turnloop: --cwd ${missing} does not exist\n`);
    expect(existsSync(join(repository, "no"))).toBe(false);
    expect(server.requests).toHaveLength(0);
    const file = join(repository, "file.txt");
    await writeFile(file, "x");
    const notFolder = await runCli(["-p", "hi", "--cwd", file], {
      cwd: repository,
      env: environment(),
    });
    expect(notFolder.code).toBe(64);
    expect(notFolder.stderr).toBe(`turnloop: --cwd ${file} is not a directory\n`);
    expect(await readFile(file, "utf8")).toBe("x");
  });

  test("an unknown flag suggests the closest one", async () => {
    const result = await runCli(["-p", "hi", "--allow-all"], {
      cwd: repository,
      env: environment(),
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      "turnloop: unknown option --allow-all; did you mean --allow-all-tools? (see turnloop --help)\n",
    );
  });

  test("an unknown command suggests the closest one; a command's extra word is named; a prompt split after -p is named", async () => {
    const cases: Array<[string[], string]> = [
      [
        ["session", "list"],
        'unknown command "session"; did you mean sessions? (see turnloop --help)',
      ],
      [["confg"], 'unknown command "confg"; did you mean config? (see turnloop --help)'],
      [["config", "show"], 'config takes no argument "show"; see turnloop --help'],
      [["acp", "--", "x"], 'acp takes no argument "x"; see turnloop --help'],
      // Without -p a bare question opens the interactive session (test/cli/interactive-arguments.test.ts).
      [
        ["-p", "What does", "this repository do?"],
        'unknown command "this repository do?"; the prompt is -p\'s one argument: quote it whole (see turnloop --help)',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd: repository, env: environment() });
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 64,
        stdout: "",
        stderr: `turnloop: ${message}\n`,
      });
    }
  });
});
