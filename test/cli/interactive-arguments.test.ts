import { describe, expect, test } from "vitest";
import { parseCommand, UsageError } from "../../src/cli/arguments.js";
import { COMMANDS, parseCommandLine } from "../../src/session/commands.js";
import { SESSION_COMMAND_NAMES, TERMINAL_COMMAND_NAMES } from "../support/slash-commands.js";

describe("the interactive command line", () => {
  test("no arguments, a first prompt, --continue, --resume with and without an id", () => {
    expect(parseCommand([], "/work")).toMatchObject({
      kind: "interactive",
      options: { cwd: "/work", continue: false },
    });
    expect(parseCommand(["fix the tests"], "/work")).toMatchObject({
      kind: "interactive",
      options: { prompt: "fix the tests" },
    });
    expect(parseCommand(["--continue"], "/work")).toMatchObject({
      kind: "interactive",
      options: { continue: true },
    });
    expect(parseCommand(["--resume"], "/work")).toMatchObject({
      kind: "interactive",
      options: { resume: { pick: true } },
    });
    expect(parseCommand(["--resume", "--model", "ollama:qwen3"], "/work")).toMatchObject({
      kind: "interactive",
      options: { resume: { pick: true }, model: "ollama:qwen3" },
    });
    expect(parseCommand(["--resume", "1a2b"], "/work")).toMatchObject({
      kind: "interactive",
      options: { resume: "1a2b" },
    });
    expect(parseCommand(["fix", "the", "tests"], "/work")).toMatchObject({
      kind: "interactive",
      options: { prompt: "fix the tests" },
    });
    expect(parseCommand(["What does this repository do?"], "/work")).toMatchObject({
      kind: "interactive",
      options: { prompt: "What does this repository do?" },
    });
    // A near miss of a command is a typo, not a prompt; a command's extra word is named.
    expect(() => parseCommand(["sesions"], "/work")).toThrow(/did you mean sessions\?/);
    expect(() => parseCommand(["session", "list"], "/work")).toThrow(
      'unknown command "session"; did you mean sessions? (see turnloop --help)',
    );
    expect(() => parseCommand(["config", "show"], "/work")).toThrow(
      'config: unexpected argument "show" (usage: turnloop config [--json] [session options])',
    );
    // The other commands keep their meaning.
    expect(parseCommand(["sessions"], "/work")).toMatchObject({ kind: "sessions-list" });
    expect(parseCommand(["-p", "hi"], "/work")).toMatchObject({ kind: "prompt" });
  });

  test("--resume without an id needs the interactive session; --resume and --continue exclude each other", () => {
    expect(() => parseCommand(["-p", "hi", "--resume"], "/work")).toThrow(UsageError);
    expect(() => parseCommand(["--resume", "--continue"], "/work")).toThrow(UsageError);
  });
});

describe("slash commands (one definition for the terminal and ACP)", () => {
  test("each has the fields ACP's available_commands_update needs, and /help lists every one", async () => {
    const names = COMMANDS.map((command) => command.name);
    expect(names).toEqual([...SESSION_COMMAND_NAMES, ...TERMINAL_COMMAND_NAMES]);
    for (const command of COMMANDS) {
      expect(command.description).not.toBe("");
      expect(command.input === undefined || command.input.hint !== "").toBe(true);
    }
    expect(
      COMMANDS.filter((command) => command.terminalOnly).map((command) => command.name),
    ).toEqual(TERMINAL_COMMAND_NAMES);
  });

  test("a line is a command only when it starts with / and a letter", () => {
    expect(parseCommandLine("/model  openai:gpt-5 ")).toMatchObject({
      name: "model",
      argument: "openai:gpt-5",
      definition: { name: "model" },
    });
    expect(parseCommandLine("/Mode auto")).toMatchObject({ name: "mode", argument: "auto" });
    expect(parseCommandLine("/nope")).toMatchObject({ name: "nope", definition: undefined });
    expect(parseCommandLine("/usr/bin/env is a path")).toBeUndefined();
    expect(parseCommandLine("what does /help do?")).toBeUndefined();
  });
});
