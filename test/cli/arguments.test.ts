import { describe, expect, test } from "vitest";
import { parseCommand, UsageError } from "../../src/cli/arguments.js";

describe("the command line", () => {
  test("the flags the Copilot SDK passes to its CLI are accepted", () => {
    const command = parseCommand(
      ["--headless", "--no-auto-update", "--log-level", "info", "--no-auto-login", "--stdio"],
      "/work",
    );
    expect(command).toMatchObject({ kind: "server", options: { transport: { stdio: true } } });
  });

  test("a bare --headless listens on a free TCP port, as the Copilot CLI does", () => {
    expect(parseCommand(["--headless"], "/work")).toMatchObject({
      kind: "server",
      options: { transport: { port: 0 } },
    });
    expect(parseCommand(["--headless", "--port", "7777"], "/work")).toMatchObject({
      options: { transport: { port: 7777 } },
    });
    expect(parseCommand(["serve"], "/work")).toMatchObject({
      options: { transport: { stdio: true } },
    });
  });

  test("repeatable rules and folders are collected", () => {
    const command = parseCommand(
      [
        "-p",
        "x",
        "--allow-tool",
        "bash(git status)",
        "--allow-tool",
        "edit",
        "--deny-tool",
        "bash(rm *)",
        "--add-dir",
        "/tmp",
      ],
      "/work",
    );
    expect(command).toMatchObject({
      kind: "prompt",
      options: {
        allowTools: ["bash(git status)", "edit"],
        denyTools: ["bash(rm *)"],
        addDirs: ["/tmp"],
        cwd: "/work",
      },
    });
  });

  test("an unknown flag names the closest valid one", () => {
    expect(() => parseCommand(["-p", "x", "--allow-all"], "/work")).toThrow(
      "unknown option --allow-all; did you mean --allow-all-tools? (see turnloop --help)",
    );
    expect(() => parseCommand(["-p", "x", "--alow-all-tools"], "/work")).toThrow(
      "did you mean --allow-all-tools?",
    );
    expect(() => parseCommand(["-p", "x", "--modle", "m"], "/work")).toThrow(
      "did you mean --model?",
    );
    expect(() => parseCommand(["-p", "x", "--mcp-confg", "f"], "/work")).toThrow(
      "did you mean --mcp-config?",
    );
    expect(() => parseCommand(["mpc", "list"], "/work")).toThrow(
      'unknown command "mpc"; did you mean mcp? (see turnloop --help)',
    );
    expect(() => parseCommand(["mcp", "lst"], "/work")).toThrow(
      'unknown mcp command "lst"; did you mean list?',
    );
  });

  test("-p without text, or -p -, reads the prompt from stdin", () => {
    for (const argv of [["-p"], ["-p", "-"], ["-p", "--model", "m"], ["--prompt"]]) {
      expect(parseCommand(argv, "/work")).toMatchObject({
        kind: "prompt",
        options: { prompt: "-" },
      });
    }
    expect(parseCommand(["-p", "hello"], "/work")).toMatchObject({ options: { prompt: "hello" } });
  });

  test("--context-window and sessions compact", () => {
    expect(parseCommand(["-p", "x", "--context-window", "8000"], "/work")).toMatchObject({
      kind: "prompt",
      options: { contextWindow: 8_000 },
    });
    expect(parseCommand(["acp", "--context-window", "32768"], "/work")).toMatchObject({
      kind: "acp",
      options: { contextWindow: 32_768 },
    });
    expect(() => parseCommand(["-p", "x", "--context-window", "0"], "/work")).toThrow(
      /--context-window must be a whole number ≥ 1000 \(tokens\)/,
    );
    expect(parseCommand(["sessions", "compact", "abc", "keep", "paths"], "/work")).toMatchObject({
      kind: "sessions-compact",
      sessionId: "abc",
      instructions: "keep paths",
    });
  });

  test("-c is --continue and -r is --resume, as in Claude Code (session 26's trial)", () => {
    expect(parseCommand(["-p", "x", "-c"], "/work")).toMatchObject({
      kind: "prompt",
      options: { continue: true },
    });
    expect(parseCommand(["-p", "-c", "x"], "/work")).toMatchObject({
      kind: "prompt",
      options: { prompt: "x", continue: true },
    });
    expect(parseCommand(["-p", "x", "-r", "abc"], "/work")).toMatchObject({
      kind: "prompt",
      options: { resume: "abc", continue: false },
    });
    expect(parseCommand(["-c"], "/work")).toMatchObject({
      kind: "interactive",
      options: { continue: true },
    });
    expect(parseCommand(["-r", "abc"], "/work")).toMatchObject({
      kind: "interactive",
      options: { resume: "abc" },
    });
    // -r without an id: the picker, as --resume alone.
    for (const argv of [["-r"], ["-r", "--model", "openai:gpt-5"]]) {
      expect(parseCommand(argv, "/work")).toMatchObject({
        kind: "interactive",
        options: { resume: { pick: true } },
      });
    }
    expect(() => parseCommand(["-p", "x", "-r", "a", "-c"], "/work")).toThrow(
      /^use either --resume or --continue, not both$/,
    );
    expect(() => parseCommand(["-c", "-r"], "/work")).toThrow(
      /^use either --resume or --continue, not both$/,
    );
  });

  test("bad input is a usage error with a readable message", () => {
    expect(() => parseCommand(["-p", "x", "--max-turns", "many"], "/work")).toThrow(UsageError);
    expect(() => parseCommand(["--unknown-flag"], "/work")).toThrow(
      /^unknown option --unknown-flag \(see turnloop --help\)$/,
    );
    expect(() => parseCommand(["-p", "x", "--resume", "a", "--continue"], "/work")).toThrow(
      /either --resume or --continue/,
    );
    expect(() => parseCommand(["--headless", "--port", "99999"], "/work")).toThrow(
      /--port must be a whole number from 0 to 65535/,
    );
    // Two flags that contradict are a usage error, never one silently winning.
    expect(() => parseCommand(["-p", "x", "--quiet", "--verbose"], "/work")).toThrow(
      /^use either --quiet or --verbose, not both$/,
    );
    for (const server of [["serve"], ["--headless"]]) {
      expect(() => parseCommand([...server, "--stdio", "--port", "4888"], "/work")).toThrow(
        /^use either --stdio or --port N, not both$/,
      );
    }
  });
});

describe("sessions view and export", () => {
  test("view opens by default; --no-open and --out are kept", () => {
    expect(parseCommand(["sessions", "view", "abc"], "/work")).toEqual({
      kind: "sessions-view",
      sessionId: "abc",
      open: true,
    });
    expect(
      parseCommand(["sessions", "view", "abc", "--no-open", "--out", "v.html"], "/work"),
    ).toEqual({
      kind: "sessions-view",
      sessionId: "abc",
      open: false,
      out: "v.html",
    });
  });

  test("export needs one of the three formats", () => {
    expect(parseCommand(["sessions", "export", "abc", "--format", "markdown"], "/work")).toEqual({
      kind: "sessions-export",
      sessionId: "abc",
      format: "markdown",
    });
    expect(() => parseCommand(["sessions", "export", "abc"], "/work")).toThrow(
      new UsageError("sessions export needs --format html, markdown, json or jsonl"),
    );
    expect(() => parseCommand(["sessions", "view"], "/work")).toThrow(UsageError);
  });
});
