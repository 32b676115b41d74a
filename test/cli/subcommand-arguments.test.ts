import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A fresh user's trial: `turnloop sessions show ID extra` ignored the extra word, and
// `turnloop sessions import` of a file that is not there exited 1 like a failed write. Every
// `sessions` and `mcp` subcommand now refuses what it would ignore (a word too many or too few,
// a flag it does not read) with exit 64 and its usage, and a missing file to import is a usage
// error as the README's exit codes say (64). Through the built CLI as a child process.

const cases: Array<{ args: string[]; stderr: string }> = [
  {
    args: ["sessions", "show", "abc", "extra"],
    stderr: 'sessions show: unexpected argument "extra" (usage: turnloop sessions show <id>)',
  },
  {
    args: ["sessions", "delete", "abc", "x", "y"],
    stderr: 'sessions delete: unexpected arguments "x" "y" (usage: turnloop sessions delete <id>)',
  },
  {
    args: ["sessions", "list", "extra"],
    stderr: 'sessions list: unexpected argument "extra" (usage: turnloop sessions [list] [--json])',
  },
  {
    args: ["sessions", "--format", "json"],
    stderr: "sessions list does not take --format (usage: turnloop sessions [list] [--json])",
  },
  {
    args: ["sessions", "show", "abc", "--out", "x.txt"],
    stderr: "sessions show does not take --out (usage: turnloop sessions show <id>)",
  },
  {
    args: ["sessions", "view", "abc", "--json"],
    stderr:
      "sessions view does not take --json (usage: turnloop sessions view <id> [--out F] [--no-open])",
  },
  {
    args: ["sessions", "export", "abc", "more", "--format", "jsonl"],
    stderr:
      'sessions export: unexpected argument "more" (usage: turnloop sessions export <id> --format html|markdown|json|jsonl [--out F])',
  },
  {
    args: ["sessions", "import"],
    stderr: "sessions import needs an argument (usage: turnloop sessions import <file | ->)",
  },
  {
    args: ["sessions", "import", "a.jsonl", "b.jsonl"],
    stderr:
      'sessions import: unexpected argument "b.jsonl" (usage: turnloop sessions import <file | ->)',
  },
  { args: ["sessions", "import", "missing.jsonl"], stderr: "no such file: missing.jsonl" },
  {
    args: ["mcp", "list", "extra"],
    stderr: 'mcp list: unexpected argument "extra" (usage: turnloop mcp list [--json])',
  },
  {
    args: ["mcp", "trust", "--json"],
    stderr: "mcp trust does not take --json (usage: turnloop mcp trust)",
  },
];

describe("subcommand arguments", () => {
  test("a word too many or too few, or a flag the subcommand does not read: exit 64 with its usage", async ({
    cli,
  }) => {
    const results = await Promise.all(
      cases.map(async ({ args }) => ({ args, ...(await cli(args)) })),
    );
    expect(results).toEqual(
      cases.map(({ args, stderr }) => ({
        args,
        code: 64,
        signal: null,
        stdout: "",
        stderr: `turnloop: ${stderr}\n`,
      })),
    );
  });

  test("what each subcommand takes still runs", async ({ cli }) => {
    const results = await Promise.all(
      [
        ["sessions", "--json"],
        ["sessions", "list", "--json"],
        ["mcp", "list", "--json"],
      ].map(async (args) => ({ args, ...(await cli(args)) })),
    );
    expect(results.map(({ args, code, stdout }) => ({ args, code, stdout }))).toEqual([
      { args: ["sessions", "--json"], code: 0, stdout: "[]\n" },
      { args: ["sessions", "list", "--json"], code: 0, stdout: "[]\n" },
      { args: ["mcp", "list", "--json"], code: 0, stdout: "[]\n" },
    ]);
  });
});
