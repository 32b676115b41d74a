import { describe, expect } from "vitest";
import { parseCommand, UsageError } from "../../src/cli/arguments.js";
import { printedSessionId, test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 15, LOW #10): `turnloop -p --continue "prompt"` (the
// spelling of `claude -p`, whose -p is a switch) was refused with "unknown command …; quote it
// whole" although the prompt was quoted whole. A `-p` with no text before other flags now takes
// the one word left as its prompt; `-p` alone still reads the prompt from stdin.

describe("-p with its prompt after the other flags", () => {
  test.for([
    [["-p", "--continue", "say hi"], { prompt: "say hi", continue: true }],
    [["-p", "--resume", "abc", "say hi"], { prompt: "say hi", resume: "abc" }],
    [["--prompt", "-q", "say hi"], { prompt: "say hi", quiet: true }],
    [["-p", "--continue"], { prompt: "-", continue: true }],
    [["-p", "-", "--continue"], { prompt: "-", continue: true }],
    [["-p", "say hi", "--continue"], { prompt: "say hi", continue: true }],
  ] as const)("%j", ([argv, options]) => {
    expect(parseCommand(argv, "/work")).toMatchObject({ kind: "prompt", options });
  });

  test("two words after a bare -p, or one after `-p -`, are still refused", () => {
    expect(() => parseCommand(["-p", "--continue", "say", "hi"], "/work")).toThrow(UsageError);
    expect(() => parseCommand(["-p", "-", "--continue", "say hi"], "/work")).toThrow(UsageError);
    // A word before the bare -p is a command, as before (test/cli/prompt-with-command.test.ts).
    expect(() => parseCommand(["config", "-p"], "/work")).toThrow(
      "understood -p - (a prompt from stdin) and the command config",
    );
  });

  test("turnloop -p --continue PROMPT continues the session with that prompt", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "first" }, { text: "second" });
    const id = printedSessionId((await cli(["-p", "hi"])).stderr);
    const continued = await cli(["-p", "--continue", "say hi there"]);
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toBe("second\n");
    expect(printedSessionId(continued.stderr)).toBe(id);
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("say hi there");
  });
});
