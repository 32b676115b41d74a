import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliResult, whenFileExists } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type CliRunOptions, test } from "../support/fixtures.js";

// stdin and output formats of `turnloop -p`, as a child process (prompt-usage-errors.test.ts:
// its usage errors).

test.override({ git: true });

function lastUserMessage(model: FakeModelServer, index = 0): string {
  const messages = chatMessages(model, index).filter((message) => message.role === "user");
  return String(messages.at(-1)?.content);
}

/**
 * Runs `-p explain` (`options`: its stdin) with a CommonJS preload that writes, at exit, the names
 * of Node's own modules loaded, and checks it answered the model's "ok". @returns those names.
 * The preload writes once the `exit` event's listeners have all run, the CLI's own among them
 * (src/cli/main.ts adds one): what they load is in the list too.
 */
async function builtinsLoadedBy(
  cli: (args: readonly string[], options?: CliRunOptions) => Promise<CliResult>,
  model: FakeModelServer,
  home: string,
  options: Pick<CliRunOptions, "stdin" | "prefix">,
): Promise<string[]> {
  model.enqueue({ text: "ok" });
  const preload = join(home, "builtins-at-exit.cjs");
  const loaded = join(home, "builtins");
  await writeFile(
    preload,
    [
      "const emit = process.emit;",
      "process.emit = function (name, ...rest) {",
      "  const result = emit.call(this, name, ...rest);",
      `  if (name === "exit") require("node:fs").writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join("\\n"));`,
      "  return result;",
      "};\n",
    ].join("\n"),
  );
  const result = await cli(["-p", "explain"], {
    ...options,
    env: { NODE_OPTIONS: `--require=${preload}` },
  });
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "ok\n" });
  return (await readFile(loaded, "utf8")).split("\n");
}

describe("stdin", () => {
  test("piped text is sent with the prompt as an attachment block", async ({ cli, model }) => {
    model.enqueue({ text: "It is a null pointer." });
    const log = "Error: boom\n    at main (app.js:3)\n";
    const result = await cli(["-p", "explain"], { stdin: log });
    expect(result.code).toBe(0);
    expect(lastUserMessage(model)).toBe(
      `explain\n\n<attachment source="stdin" bytes="${log.length}">\n${log}</attachment>`,
    );
    // Trial 47 F4: a CI runner feeding its script on stdin lost the rest of it silently. What was
    // read is said once on stderr, stdout keeping only the answer.
    expect({
      stdout: result.stdout,
      said: result.stderr.split("\n").filter((line) => line.startsWith("turnloop:")),
    }).toEqual({
      stdout: "It is a null pointer.\n",
      said: [
        `turnloop: read ${log.length} bytes from stdin as an attachment to the prompt; use </dev/null to give none`,
      ],
    });
  });

  test("piped text past 100 KiB keeps its head and tail with a note of what was cut", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "ok" });
    const piped = `HEAD${"x".repeat(200_000)}TAIL\n`;
    const result = await cli(["-p", "summarise"], { stdin: piped });
    expect(result.code).toBe(0);
    const sent = lastUserMessage(model);
    expect(sent).toContain(`<attachment source="stdin" bytes="${piped.length}">\nHEAD`);
    expect(sent).toContain(
      `[… ${piped.length - 102_400} bytes of the piped input cut here; it had ${piped.length} bytes …]`,
    );
    expect(sent).toContain("TAIL\n</attachment>");
    expect(sent.length).toBeLessThan(103_000);
  });

  test("a 256 MiB pipe is attached by its ends without being held: the child's peak memory stays far below the stream (trial 32, F4)", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue({ text: "ok" });
    const lines = 256 * 1024 * 1024;
    const preload = join(home, "peak-at-exit.cjs");
    const peak = join(home, "peak");
    await writeFile(
      preload,
      `process.on("exit", () => { const fs = require("node:fs"); fs.writeFileSync(${JSON.stringify(peak)}, fs.readFileSync("/proc/self/status", "utf8")); });\n`,
    );
    // A sibling writes the stream (process substitution), as `cat big.log | turnloop -p …` does.
    const result = await cli(["-p", "summarise"], {
      prefix: `exec 0< <(echo FIRST; yes 'lorem ipsum dolor sit amet' | head -c ${lines}; echo LAST)`,
      env: { NODE_OPTIONS: `--require=${preload}` },
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "ok\n" });
    const total = "FIRST\n".length + lines + "LAST\n".length;
    const sent = lastUserMessage(model);
    expect(sent).toContain(`<attachment source="stdin" bytes="${total}">\nFIRST\nlorem ipsum`);
    // Each end is cut at a line end: less than a line (27 bytes) more is left out at each.
    const cut = new RegExp(
      `\\nlorem ipsum dolor sit amet\\n\\[… (\\d+) bytes of the piped input cut here; it had ${total} bytes …\\]\\nlorem ipsum dolor sit amet\\n`,
    ).exec(sent);
    expect(Number(cut?.[1]) - (total - 102_400)).toBeGreaterThanOrEqual(0);
    expect(Number(cut?.[1]) - (total - 102_400)).toBeLessThan(2 * 27);
    expect(sent).toContain(
      "lorem ipsum dolor sit amet\nlorem ipsum dolor sit ameLAST\n</attachment>",
    );
    // Peak resident memory (kB): Node and the run take about 60–100 MiB; the stream is 256 MiB.
    const kilobytes = Number(/^VmHWM:\s*(\d+) kB/m.exec(await readFile(peak, "utf8"))?.[1]);
    expect(kilobytes).toBeGreaterThan(0);
    expect(kilobytes).toBeLessThan(200 * 1024);
  });

  test("binary data on stdin is refused with a clear message and exit 64; nothing is sent", async ({
    cli,
    model,
  }) => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const attached = await cli(["-p", "describe this"], { stdin: png });
    const asPrompt = await cli(["-p", "-"], {
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
    expect(model.requests).toHaveLength(0);
  });

  test("a run that asks nothing, stdin a pipe, loads neither Node's readline nor its tty module (issue 26)", async ({
    cli,
    model,
    home,
  }) => {
    const names = await builtinsLoadedBy(cli, model, home, { stdin: "a log line\n" });
    // The preload saw the run's modules (so the check below can fail): the prompt's HTTP client.
    expect(names).toContain("NativeModule http");
    expect(names.filter((name) => /^NativeModule (readline|tty)$/.test(name))).toEqual([]);
  });

  // One run shows all three: the same flags and stdin each time.
  test("stdin /dev/null (a character device, not a terminal) reads as empty, the prompt going alone, and is not read: neither stdin's file stream nor the tty module loads; a whole run loads no perf_hooks, its clocks process.hrtime, not the global performance (issue 26)", async ({
    cli,
    model,
    home,
  }) => {
    // builtinsLoadedBy checks the run answered: exit 0, the model's "ok" on stdout.
    const names = await builtinsLoadedBy(cli, model, home, { prefix: "exec 0</dev/null" });
    expect(lastUserMessage(model)).toBe("explain");
    // The preload saw the run's modules (so the checks below can fail): the prompt's HTTP client.
    expect(names).toContain("NativeModule http");
    expect(names.filter((name) => /^NativeModule (internal\/fs\/streams|tty)$/.test(name))).toEqual(
      [],
    );
    expect(
      names.filter((name) => /^NativeModule (perf_hooks|internal\/perf\/performance)$/.test(name)),
    ).toEqual([]);
    // -p - on /dev/null: the prompt is empty, as when the device was read.
    const empty = await cli(["-p", "-"], { prefix: "exec 0</dev/null" });
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({
      code: 64,
      stderr: "turnloop: -p - reads the prompt from stdin, but stdin was empty\n",
    });
  });

  test("-p - and -p without text read the prompt from stdin", async ({ cli, model }) => {
    model.enqueue({ text: "one" }, { text: "two" });
    const dash = await cli(["-p", "-"], { stdin: "What is 2+2?\n" });
    expect(dash.code).toBe(0);
    expect(lastUserMessage(model, 0)).toBe("What is 2+2?");
    const bare = await cli(["--output-format", "json", "-p"], { stdin: "And 3+3?" });
    expect(bare.code).toBe(0);
    expect(lastUserMessage(model, 1)).toBe("And 3+3?");
    const empty = await cli(["-p", "-"]);
    expect(empty.code).toBe(64);
    expect(empty.stderr).toBe("turnloop: -p - reads the prompt from stdin, but stdin was empty\n");
    expect(model.requests).toHaveLength(2);
  });

  test("a blank prompt is a usage error: no request, no session", async ({ cli, model, home }) => {
    for (const [text, stdin] of [
      ["", undefined],
      ["  \n ", undefined],
      ["  ", "\n \n"],
    ]) {
      const blank = await cli(["-p", text ?? ""], stdin === undefined ? {} : { stdin });
      expect({ code: blank.code, stdout: blank.stdout, stderr: blank.stderr }).toEqual({
        code: 64,
        stdout: "",
        stderr: "turnloop: the prompt is empty: give it as -p TEXT, or pipe it in with -p -\n",
      });
    }
    expect(model.requests).toEqual([]);
    expect(existsSync(join(home, "session-state"))).toBe(false);
  });
});

describe("output", () => {
  test("--output-format json prints one result object shaped like claude -p's", async ({
    cli,
    model,
    home,
  }) => {
    model.enqueue(
      {
        text: "Looking.",
        toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }],
      },
      { text: ["The answer ", "is 42."] },
    );
    const result = await cli(["-p", "hi", "--output-format", "json"]);
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
      permission_denials: [],
      left_running_pids: [],
    });
    expect(existsSync(join(home, "session-state", String(parsed.session_id), "events.jsonl"))).toBe(
      true,
    );
  });

  test("a failed prompt's result says is_error with the error", async ({ cli, model }) => {
    model.enqueue({ status: 400, body: { error: { message: "bad request body" } } });
    const result = await cli(["-p", "hi", "--output-format", "json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      stop_reason: null,
      error: { type: "invalid_request", message: expect.stringContaining("bad request body") },
    });
  });

  test("--quiet prints only the final answer, no narration, tool lines or summary", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      {
        text: "Let me look.",
        toolCalls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }],
      },
      { text: "Final answer." },
    );
    const result = await cli(["-p", "hi", "--quiet"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Final answer.\n");
    expect(result.stderr).toBe("");
    model.enqueue({ status: 401, body: { error: { message: "bad key" } } });
    const failed = await cli(["-p", "hi", "-q"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/^turnloop: HTTP 401: .*bad key.*\n$/);
  });

  test("--quiet and Ctrl-C: stderr still names the session to resume", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({
      toolCalls: [
        { id: "call_1", name: "bash", arguments: '{"command":"touch started; sleep 30"}' },
      ],
    });
    const result = await cli(["-p", "go", "-q", "--allow-all-tools"], {
      // Ctrl-C once the command runs (its marker is written), not after a guessed delay.
      onStart: (child) =>
        whenFileExists(join(repository, "started"), child, () => child.kill("SIGINT")),
    });
    const id = /--resume ([0-9a-f-]{36})\n$/.exec(result.stderr)?.[1];
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 130,
      stdout: "",
      stderr: `turnloop: cancelled; resume with --resume ${id}\n`,
    });
    expect(id).toMatch(/^[0-9a-f]{8}-/);
  });

  test("--quiet still says on stderr what only the user can fix: an MCP server that failed to start, a call refused for want of a terminal", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }] },
      { text: "Could not run it." },
    );
    const servers = { mcpServers: { tracker: { command: "/nonexistent/tracker-mcp" } } };
    await writeFile(join(repository, "servers.json"), JSON.stringify(servers));
    const result = await cli(["-p", "hi", "-q", "--mcp-config", "servers.json"]);
    expect({
      ...result,
      stderr: result.stderr.replace(/\([\d.]+ (?:ms|s|min)\)/, "(<ms>)"),
    }).toEqual({
      code: 0,
      signal: null,
      stdout: "Could not run it.\n",
      stderr:
        "turnloop: MCP server tracker failed: command not found: /nonexistent/tracker-mcp; its tools are not available\n" +
        "✗ bash echo hi denied (<ms>): Permission denied for 'bash': no terminal to ask on; rerun with " +
        "--allow-tool 'bash(echo hi)' or --allow-all-tools\n",
    });
    // The json format's one result object has no room for them: they go to stderr too.
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo hi"}' }] },
      { text: "Could not run it." },
    );
    const json = await cli(["-p", "hi", "--output-format", "json", "--mcp-config", "servers.json"]);
    expect({
      code: json.code,
      result: JSON.parse(json.stdout).result,
      stderr: json.stderr.replace(/\([\d.]+ (?:ms|s|min)\)/, "(<ms>)"),
    }).toEqual({
      code: 0,
      result: "Could not run it.",
      stderr: result.stderr.replace(/\([\d.]+ (?:ms|s|min)\)/, "(<ms>)"),
    });
  });
});
