import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { type UsageErrorCase, usageErrorOutcomes } from "../support/usage-errors.js";

// A fresh user's trial: `turnloop sessions show ID extra` ignored the extra word, and
// `turnloop sessions import` of a file that is not there exited 1 like a failed write. Every
// `sessions` and `mcp` subcommand now refuses what it would ignore (a word too many or too few,
// a flag it does not read) with exit 64 and its usage, and a missing file to import is a usage
// error as the README's exit codes say (64). Through the built CLI as a child process.

const cases: UsageErrorCase[] = [
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
    stderr:
      'sessions list: unexpected argument "extra" (usage: turnloop sessions [list] [--json] [--limit N])',
  },
  {
    args: ["sessions", "--format", "json"],
    stderr:
      "sessions list does not take --format (usage: turnloop sessions [list] [--json] [--limit N])",
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
const MCP_USAGE = "turnloop mcp list [--json] | turnloop mcp trust | turnloop mcp untrust";
const SERVE_USAGE = "turnloop serve | --headless [--stdio | --port N [--host H]] [session options]";

const flagCases: UsageErrorCase[] = [
  {
    args: ["sessions", "list", "--bogus"],
    stderr: "unknown option --bogus (usage: turnloop sessions [list] [--json] [--limit N])",
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
  // `turnloop sessions --limit` named the whole group's usage: `sessions` alone runs `sessions
  // list`, the one action that reads --limit, so a flag that one action reads ends with that
  // action's usage (a flag two actions read, --out, keeps the group's). A number flag without
  // its value says it needs a number, under -p too.
  {
    args: ["sessions", "--limit"],
    stderr: "--limit needs a number (usage: turnloop sessions [list] [--json] [--limit N])",
  },
  {
    args: ["sessions", "list", "--limit"],
    stderr: "--limit needs a number (usage: turnloop sessions [list] [--json] [--limit N])",
  },
  {
    args: ["sessions", "--limt", "2"],
    stderr:
      "unknown option --limt; did you mean --limit? (usage: turnloop sessions [list] [--json] [--limit N])",
  },
  { args: ["sessions", "--out"], stderr: `--out needs a value (usage: ${SESSIONS_USAGE})` },
  {
    args: ["mcp", "--mcp-config"],
    stderr:
      "--mcp-config needs a value (usage: turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors])",
  },
  { args: ["-p", "hi", "--max-turns"], stderr: "--max-turns needs a number (see turnloop --help)" },
  {
    args: ["sessions", "compact", "abc", "--bogus"],
    stderr:
      "unknown option --bogus (usage: turnloop sessions compact <id> [instructions] [session options])",
  },
  {
    args: ["sessions", "compact"],
    stderr:
      "sessions compact needs an argument (usage: turnloop sessions compact <id> [instructions] [session options])",
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
    stderr: "unknown option --bogus (usage: turnloop config [--json] [session options])",
  },
  {
    args: ["acp", "--modle", "x"],
    stderr: "unknown option --modle; did you mean --model? (usage: turnloop acp [session options])",
  },
  { args: ["serve", "--bogus"], stderr: `unknown option --bogus (usage: ${SERVE_USAGE})` },
  { args: ["--headless", "--port"], stderr: `--port needs a number (usage: ${SERVE_USAGE})` },
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
    environment,
    model,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      flagCases,
    );
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("a word too many or too few, or a flag the subcommand does not read: exit 64 with its usage", async ({
    cli,
    environment,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes({ cli, environment, repository }, cases);
    expect(actual).toEqual(expected);
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

// A daily driver's run: `turnloop acp --output-format json`, `turnloop config --quiet` and
// `turnloop serve --verbose` ran and ignored the flag, which only -p reads. Which command reads
// which flag is one table (src/cli/subcommands.ts, FLAG_READERS); a flag the command does not read
// is a usage error naming it and the command, with the command's usage, exit 64.
const ACP_USAGE = "turnloop acp [session options]";
const CONFIG_USAGE = "turnloop config [--json] [session options]";
const COMPACT_USAGE = "turnloop sessions compact <id> [instructions] [session options]";
const INTERACTIVE = "the interactive session (turnloop without -p)";

const unreadCases: UsageErrorCase[] = [
  {
    args: ["acp", "--output-format", "json"],
    stderr: `acp does not take --output-format (usage: ${ACP_USAGE})`,
  },
  {
    args: ["acp", "--quiet", "--verbose"],
    stderr: `acp does not take --quiet, --verbose (usage: ${ACP_USAGE})`,
  },
  { args: ["acp", "--continue"], stderr: `acp does not take --continue (usage: ${ACP_USAGE})` },
  { args: ["acp", "--resume"], stderr: `acp does not take --resume (usage: ${ACP_USAGE})` },
  { args: ["acp", "--port", "3"], stderr: `acp does not take --port (usage: ${ACP_USAGE})` },
  { args: ["acp", "--json"], stderr: `acp does not take --json (usage: ${ACP_USAGE})` },
  {
    args: ["config", "--output-format", "json"],
    stderr: `config does not take --output-format (usage: ${CONFIG_USAGE})`,
  },
  { args: ["config", "-q"], stderr: `config does not take --quiet (usage: ${CONFIG_USAGE})` },
  {
    args: ["config", "--resume", "abc"],
    stderr: `config does not take --resume (usage: ${CONFIG_USAGE})`,
  },
  { args: ["config", "--stdio"], stderr: `config does not take --stdio (usage: ${CONFIG_USAGE})` },
  { args: ["serve", "--quiet"], stderr: `serve does not take --quiet (usage: ${SERVE_USAGE})` },
  {
    args: ["--headless", "--stdio", "--output-format", "stream-json"],
    stderr: `serve does not take --output-format (usage: ${SERVE_USAGE})`,
  },
  {
    args: ["--headless", "--continue"],
    stderr: `serve does not take --continue (usage: ${SERVE_USAGE})`,
  },
  { args: ["serve", "--out", "x"], stderr: `serve does not take --out (usage: ${SERVE_USAGE})` },
  {
    args: ["sessions", "compact", "abc", "--output-format", "json"],
    stderr: `sessions compact does not take --output-format (usage: ${COMPACT_USAGE})`,
  },
  {
    args: ["sessions", "--model", "x"],
    stderr:
      "sessions list does not take --model (usage: turnloop sessions [list] [--json] [--limit N])",
  },
  {
    args: ["mcp", "list", "--autopilot"],
    stderr:
      "mcp list does not take --autopilot (usage: turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors])",
  },
  { args: ["-p", "hi", "--json"], stderr: "-p does not take --json (see turnloop --help)" },
  { args: ["-p", "hi", "--port", "0"], stderr: "-p does not take --port (see turnloop --help)" },
  {
    args: ["--output-format", "json"],
    stderr: `${INTERACTIVE} does not take --output-format (see turnloop --help)`,
  },
  {
    args: ["fix it", "--quiet"],
    stderr: `${INTERACTIVE} does not take --quiet (see turnloop --help)`,
  },
  { args: ["--stdio"], stderr: `${INTERACTIVE} does not take --stdio (see turnloop --help)` },
];

describe("flags a command does not read", () => {
  test("exit 64 naming the flag and the command, with its usage; nothing is sent", async ({
    cli,
    environment,
    model,
    repository,
  }) => {
    const { actual, expected } = await usageErrorOutcomes(
      { cli, environment, repository },
      unreadCases,
    );
    expect(actual).toEqual(expected);
    expect(model.requests).toHaveLength(0);
  });

  test("config takes every session option and shows the ones no file sets", async ({
    cli,
    repository,
  }) => {
    // An --add-dir must be a folder (exit 64 otherwise, as for --cwd).
    const docs = join(repository, "docs");
    await mkdir(docs);
    const result = await cli([
      "config",
      "--json",
      "--max-turns",
      "3",
      "--context-window",
      "5000",
      "--add-dir",
      docs,
      "--no-instructions",
      "--system-prompt-file",
      "prompt.md",
      "--append-system-prompt",
      "Be brief.",
      "--yolo",
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    const shown = JSON.parse(result.stdout) as Record<string, unknown>;
    expect({
      maxTurns: shown.maxTurns,
      permissionMode: shown.permissionMode,
      contextWindow: shown.contextWindow,
      addDirs: shown.addDirs,
      instructions: shown.instructions,
      systemPromptFile: shown.systemPromptFile,
      appendSystemPrompt: shown.appendSystemPrompt,
    }).toEqual({
      maxTurns: { value: 3, source: "--max-turns" },
      permissionMode: { value: "full-access", source: "--allow-all-tools" },
      contextWindow: { value: 5000, source: "--context-window" },
      addDirs: [{ value: docs, source: "--add-dir" }],
      instructions: { value: false, source: "--no-instructions" },
      // A relative path is read against the folder turnloop started in (here the repository).
      systemPromptFile: { value: join(repository, "prompt.md"), source: "--system-prompt-file" },
      appendSystemPrompt: { value: "Be brief.", source: "--append-system-prompt" },
    });
  });
});
