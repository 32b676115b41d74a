import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { type UsageErrorCase, usageErrorOutcomes } from "../support/usage-errors.js";

// A daily driver's run: `turnloop -p hi config` printed the config (the subcommand's word won
// over -p, and the prompt was dropped); `-p hi sessions`, `-p hi acp` and `-p hi --headless` did
// the same with their commands. -p with a subcommand's word or --headless is now a usage error
// (exit 64) that says what was understood, before anything runs; a prompt that is only such a
// word (`turnloop -p config`) is still a prompt. Through the built CLI as a child process.

const cases: UsageErrorCase[] = [
  {
    args: ["-p", "hi", "config"],
    stderr:
      'understood -p "hi" (one prompt) and the command config; give one of them, or quote the prompt whole: -p "hi config" (see turnloop --help)',
  },
  {
    args: ["config", "-p", "hi"],
    stderr:
      'understood -p "hi" (one prompt) and the command config; give one of them, or quote the prompt whole: -p "hi config" (see turnloop --help)',
  },
  {
    args: ["-p", "hi", "sessions", "show", "abc"],
    stderr:
      'understood -p "hi" (one prompt) and the command sessions show abc; give one of them, or quote the prompt whole: -p "hi sessions show abc" (see turnloop --help)',
  },
  {
    args: ["--model", "x", "-p", "hi", "mcp", "list"],
    stderr:
      'understood -p "hi" (one prompt) and the command mcp list; give one of them, or quote the prompt whole: -p "hi mcp list" (see turnloop --help)',
  },
  {
    args: ["-p", "fix it", "acp"],
    stderr:
      'understood -p "fix it" (one prompt) and the command acp; give one of them, or quote the prompt whole: -p "fix it acp" (see turnloop --help)',
  },
  {
    args: ["-p", "hi", "serve"],
    stderr:
      'understood -p "hi" (one prompt) and the command serve; give one of them, or quote the prompt whole: -p "hi serve" (see turnloop --help)',
  },
  {
    args: ["--headless", "--stdio", "-p", "hi"],
    stderr:
      'understood -p "hi" (one prompt) and --headless (the server); give one of them (see turnloop --help)',
  },
  {
    args: ["config", "-p"],
    stderr:
      "understood -p - (a prompt from stdin) and the command config; give one of them (see turnloop --help)",
  },
];

describe("-p with a subcommand", () => {
  test("is a usage error saying what was understood: exit 64, nothing sent", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes({ cli, environment, repository }, cases);
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("a prompt that is a command's word alone is still a prompt", async ({ cli, model }) => {
    const words = ["config", "sessions", "mcp", "acp", "serve"];
    model.setResponder(() => ({ text: "ok" }));
    const results = await Promise.all(
      words.map(async (word) => {
        const { code, stdout } = await cli(["-p", word, "--quiet"]);
        return { word, code, stdout };
      }),
    );
    expect(results).toEqual(words.map((word) => ({ word, code: 0, stdout: "ok\n" })));
    const sent = model.requests.map((request) => JSON.stringify(request.body));
    expect(words.map((word) => sent.filter((body) => body.includes(`"${word}"`)).length)).toEqual(
      words.map(() => 1),
    );
  });
});
