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
    stderr:
      'mcp list: unexpected argument "extra" (usage: turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors])',
  },
  {
    args: ["mcp", "trust", "--json"],
    stderr: "mcp trust does not take --json (usage: turnloop mcp trust)",
  },
];

// The same trial: an unknown flag on a subcommand (`sessions list --bogus`, `mcp add --bogus`)
// got the generic "(see turnloop --help)". Every usage error about a subcommand now ends with that
// subcommand's usage, from one table (src/cli/subcommands.ts); -p and the interactive session,
// which are no subcommand, keep pointing at --help.
const SESSIONS_USAGE =
  "turnloop sessions [list | show <id> | delete <id> | view <id> | export <id> --format F | import <file> | compact <id> [instructions]]";
const MCP_USAGE = "turnloop mcp list [--json] | turnloop mcp trust";
const SERVE_USAGE = "turnloop serve | --headless [--stdio | --port N [--host H]] [options of -p]";

const flagCases: Array<{ args: string[]; stderr: string }> = [
  {
    args: ["sessions", "list", "--bogus"],
    stderr: "unknown option --bogus (usage: turnloop sessions [list] [--json])",
  },
  { args: ["sessions", "--bogus"], stderr: `unknown option --bogus (usage: ${SESSIONS_USAGE})` },
  {
    args: ["sessions", "show", "abc", "--bogus"],
    stderr: "unknown option --bogus (usage: turnloop sessions show <id>)",
  },
  {
    args: ["sessions", "export", "abc", "--fromat", "html"],
    stderr:
      "unknown option --fromat; did you mean --format? (usage: turnloop sessions export <id> --format html|markdown|json|jsonl [--out F])",
  },
  {
    args: ["sessions", "view", "abc", "--out"],
    stderr: "--out needs a value (usage: turnloop sessions view <id> [--out F] [--no-open])",
  },
  {
    args: ["sessions", "compact", "abc", "--bogus"],
    stderr:
      "unknown option --bogus (usage: turnloop sessions compact <id> [instructions] [options of -p])",
  },
  {
    args: ["sessions", "compact"],
    stderr:
      "sessions compact needs an argument (usage: turnloop sessions compact <id> [instructions] [options of -p])",
  },
  {
    args: ["sessions", "shwo", "abc"],
    stderr: `unknown sessions command "shwo"; did you mean show? (usage: ${SESSIONS_USAGE})`,
  },
  { args: ["mcp", "add", "--bogus"], stderr: `unknown option --bogus (usage: ${MCP_USAGE})` },
  { args: ["mcp"], stderr: `mcp needs a command (usage: ${MCP_USAGE})` },
  {
    args: ["mcp", "list", "--jsn"],
    stderr:
      "unknown option --jsn; did you mean --json? (usage: turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors])",
  },
  {
    args: ["mcp", "trust", "--bogus"],
    stderr: "unknown option --bogus (usage: turnloop mcp trust)",
  },
  {
    args: ["config", "--bogus"],
    stderr: "unknown option --bogus (usage: turnloop config [--json] [options of -p])",
  },
  {
    args: ["acp", "--modle", "x"],
    stderr: "unknown option --modle; did you mean --model? (usage: turnloop acp [options of -p])",
  },
  { args: ["serve", "--bogus"], stderr: `unknown option --bogus (usage: ${SERVE_USAGE})` },
  { args: ["--headless", "--port"], stderr: `--port needs a value (usage: ${SERVE_USAGE})` },
  {
    args: ["serve", "extra"],
    stderr: `serve: unexpected argument "extra" (usage: ${SERVE_USAGE})`,
  },
  { args: ["-p", "hi", "--bogus"], stderr: "unknown option --bogus (see turnloop --help)" },
  {
    args: ["-p", "hi", "--append-system-prompt", "-x"],
    stderr:
      '--append-system-prompt needs a value; to give one that starts with "-", write --append-system-prompt=VALUE (see turnloop --help)',
  },
];

describe("subcommand arguments", () => {
  test("an unknown flag, a flag without its value or an unknown action: exit 64 with the subcommand's usage", async ({
    cli,
    model,
  }) => {
    const results = await Promise.all(
      flagCases.map(async ({ args }) => ({ args, ...(await cli(args)) })),
    );
    expect(results).toEqual(
      flagCases.map(({ args, stderr }) => ({
        args,
        code: 64,
        signal: null,
        stdout: "",
        stderr: `turnloop: ${stderr}\n`,
      })),
    );
    expect(model.requests).toHaveLength(0);
  });

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
