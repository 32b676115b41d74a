/** What `turnloop --help` prints: every command and flag, with what it means. */
export const USAGE = `turnloop: an open, model-agnostic coding agent.

Usage:
  turnloop ["<prompt>"] [options]     an interactive session in this folder (the session
                                      options; --continue, --resume [<id>] reopen one)
  turnloop -p "<prompt>" [options]    run one prompt: the final answer to stdout, progress
                                      to stderr (-p is --prompt)
  turnloop acp                        serve the Agent Client Protocol (v1) on stdio, for editors
  turnloop --headless --stdio|--port N [--host H]
                                      serve the SDK's JSON-RPC protocol (also: turnloop serve)
  turnloop config [--json]            print the settings in force and where each came from
                                      (the session options given included)
  turnloop sessions [--json] [--limit N]
                                      list sessions, newest first (only the newest N)
  turnloop sessions show <id>         print a session's conversation
  turnloop sessions delete <id>       delete a session
  turnloop sessions view <id> [--out F] [--no-open]
                                      write a session's HTML timeline (self-contained, offline)
                                      beside its log or at F, and open it when there is a display
  turnloop sessions export <id> --format html|markdown|json [--out F]
                                      a session as one file, for sharing (stdout without --out)
  turnloop sessions export <id> --format jsonl [--out F]
                                      a session's events exactly as stored, for import
  turnloop sessions import <file | ->
                                      store a session exported with --format jsonl
                                      (sessions commands take --store too)
  turnloop mcp list [--json] [--mcp-config F] [--ignore-config-errors]
                                      the MCP servers this directory would use: state, tools
                                      (exit 1 when one failed to start, 64 for a bad file)
  turnloop mcp trust                  trust this directory: its .mcp.json servers run and
                                      its .turnloop/config.json applies whole (untrusted,
                                      keys that loosen permissions, send data elsewhere or
                                      change what a run may spend are held:
                                      permissions.allow, baseUrl, model, maxTurns, …)
  turnloop mcp untrust                take that trust back
  turnloop sessions compact <id> [instructions]
                                      summarise a session's older history now
  turnloop --version | --help         (also -v, -h)

Session options (read by -p, the interactive session, acp, serve, config and
sessions compact, but those marked "-p only" or "-p, interactive"):
  --model, -m <provider:model>        or TURNLOOP_MODEL; providers: openai, openai-chat,
                                      anthropic, ollama, openai-compatible; or
                                      <profile:model>, any model of a config file's profile
  --base-url <url>                    or TURNLOOP_BASE_URL (OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
                                      OLLAMA_HOST are read too); not for a profile's models,
                                      which run at the profile's baseUrl
  --resume, -r <session-id>           continue a session (-p, interactive)
  --continue, -c                      continue the newest session of this directory (-p,
                                      interactive)
  --max-turns <n>                     model requests allowed for the prompt, n ≥ 1 (default
                                      100; a compaction's summary requests are not counted)
  --autopilot                         keep working until the model calls task_complete
  --max-autopilot-continues <n>       nudges allowed in autopilot, n ≥ 0 (default 5)
  --allow-all-tools                   run every tool without asking (also --yolo)
  --permission-mode ask|auto|full-access
                                      auto: commands run in the sandbox without asking, and
                                      so do edits inside the workspace (default with
                                      --autopilot); full-access = --allow-all-tools
  --sandbox <policy>                  confine commands: read-only, workspace-write or
                                      danger-full-access (none); needs bubblewrap
  --sandbox-network                   let sandboxed commands use the network
  --allow-tool <NAME[(pattern)]>      allow a tool, e.g. 'bash(git status)' or 'edit(src/**)'
  --deny-tool <NAME[(pattern)]>       deny a tool (wins over allow); both are repeatable;
                                      'bash(rm *)' judges programs and their words, not what
                                      python -c or a script does: --sandbox confines effects
  --add-dir <dir>                     another folder the agent may read without asking (and
                                      sandboxed commands write, under workspace-write)
  --output-format text|json|stream-json
                                      json: one result object at the end (as claude -p's);
                                      stream-json: every event as a JSON line, then the result
                                      (-p only)
  --quiet, -q                         print only the final answer (-p only)
  --verbose                           show the whole output of a failed command (-p only)
  --cwd <dir>                         working directory (default: the current one)
  --no-instructions                   leave out AGENTS.md (CLAUDE.md, GEMINI.md,
                                      .github/copilot-instructions.md) and ~/.turnloop/AGENTS.md
  --append-system-prompt <text>       add text to the end of the system prompt
  --system-prompt-file <file>         use the file's text instead of turnloop's base prompt
  --mcp-config <file>                 MCP servers ({"mcpServers": {...}}), besides
                                      the config files' mcpServers, ~/.turnloop/mcp.json
                                      and a trusted project's .mcp.json
  --context-window <tokens>           the model's context window, ≥ 1000 (or
                                      TURNLOOP_CONTEXT_WINDOW); compaction starts at 80 % of it
  --ignore-config-errors              go on when a config file's permissions section has
                                      an unknown key (its rules are then ignored) or an
                                      MCP server file is bad (its bad entries skipped)
  --store <postgres://…>              keep sessions in PostgreSQL (or TURNLOOP_DATABASE_URL)

Sessions are kept in $TURNLOOP_HOME/session-state/<id>/events.jsonl
(default ~/.turnloop), or in PostgreSQL with --store.`;

/** A command whose `--help` prints only its own usage (`turnloop mcp --help`). */
export type HelpTopic = "sessions" | "mcp" | "config" | "acp" | "serve";

const HELP_TOPICS: readonly string[] = ["sessions", "mcp", "config", "acp", "serve"];

/** The topic `--help` is for when the first word names a command, else undefined. */
export function helpTopic(word: string | undefined): HelpTopic | undefined {
  return word !== undefined && HELP_TOPICS.includes(word) ? (word as HelpTopic) : undefined;
}

/**
 * What `turnloop <topic> --help` prints: the lines of {@link USAGE}'s command list for that
 * command (`serve`: `--headless`'s too), and where the rest is.
 */
export function usageOf(topic: HelpTopic): string {
  const list = USAGE.slice(
    USAGE.indexOf("Usage:\n"),
    USAGE.indexOf("\n\n", USAGE.indexOf("Usage:")),
  );
  const starts =
    topic === "serve" ? ["turnloop --headless", "turnloop serve"] : [`turnloop ${topic}`];
  const kept: string[] = [];
  let keeping = false;
  for (const line of list.split("\n").slice(1)) {
    const entry = line.trimStart();
    if (line.startsWith("  turnloop")) {
      keeping = starts.some((start) => entry === start || entry.startsWith(`${start} `));
    }
    if (keeping) {
      kept.push(line);
    }
  }
  const options =
    topic === "mcp" || topic === "sessions" ? "" : " and the session options it reads";
  return `Usage:\n${kept.join("\n")}\n\nEvery command${options}: turnloop --help`;
}
