import { resolve } from "node:path";
import { warningLine } from "../events/errors.js";
import { configuredFace } from "../session/face-config.js";
import {
  gatherMcpServers,
  reportGathered,
  startupWaitFrom,
  trustProject,
  untrustProject,
} from "../session/mcp-servers.js";
import { turnloopHome } from "../session/paths.js";
import { PRODUCER_VERSION } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { type McpServerSummary, McpServers } from "../tools/mcp/servers.js";
import type { Command } from "./arguments.js";

type McpCommand = Extract<Command, { kind: `mcp-${string}` }>;

/**
 * Runs `turnloop mcp list` (starts every configured server, waits at most the start-up wait,
 * prints name, transport, state and tool count, then stops them; one that has not answered by
 * then is `failed`, saying so), `turnloop mcp trust` and `turnloop mcp untrust`.
 * Servers of an untrusted project file are listed as `untrusted` and not started.
 * @returns the exit code: 0; 1 when a server failed to start (a program that is no MCP server,
 * or one that did not answer within the wait, included: its row says why); 64 when a config or
 * MCP server file is bad (a missing `--mcp-config` file, invalid JSON, an entry that is no
 * server), as for every face (README, exit codes), unless `--ignore-config-errors`.
 */
export async function runMcpCommand(
  command: McpCommand,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const home = turnloopHome(process.env);
  if (command.kind === "mcp-trust" || command.kind === "mcp-untrust") {
    io.stdout.write(await changeTrust(command.kind, home, command.cwd));
    return 0;
  }
  // A bad config or MCP server file stops `mcp list` as it stops every face (exit 64), unless
  // --ignore-config-errors: then its problems are reported below and the good entries listed.
  const configured = await configuredFace(command.options, process.env);
  if (!configured.ok) {
    io.stderr.write(`turnloop: ${configured.message}\n`);
    return 64;
  }
  for (const warning of configured.warnings) {
    io.stderr.write(`${warningLine(warning)}\n`);
  }
  const cwd = resolve(command.options.cwd);
  const gathered = await gatherMcpServers({ home, cwd, configFiles: command.options.mcpConfigs });
  reportGathered(gathered, (line) => io.stderr.write(`${line}\n`));
  const servers = new McpServers(gathered.servers, {
    cwd,
    env: process.env,
    version: PRODUCER_VERSION,
    ...(startupWaitFrom(process.env) === undefined
      ? {}
      : { startupWaitMs: startupWaitFrom(process.env) }),
  });
  await servers.whenStarted();
  // Listed once: a server that has not answered by the end of the wait is said to have failed.
  servers.giveUpOnPending();
  // Named as a session names them (apart from the built-in tools): what was renamed is listed.
  servers.tools([...builtinTools().map((tool) => tool.name), "task_complete"]);
  const rows: ListedServer[] = [
    ...servers.list(),
    ...(gathered.untrustedProject?.names ?? [])
      .filter((name) => gathered.servers[name] === undefined)
      .map((name) => ({
        name,
        state: "untrusted" as const,
        type: "project",
        toolCount: 0 as const,
      })),
  ];
  await servers.close();
  io.stdout.write(command.json ? `${JSON.stringify(rows, null, 2)}\n` : listing(rows, cwd));
  return rows.some((row) => row.state === "failed") ? 1 : 0;
}

/** `mcp trust` / `mcp untrust` of the project around `cwd`: what is said on stdout. */
async function changeTrust(
  kind: "mcp-trust" | "mcp-untrust",
  home: string,
  cwd: string,
): Promise<string> {
  if (kind === "mcp-trust") {
    const applies = await whatTrustingApplies(home, cwd);
    const project = await trustProject(home, cwd);
    return `${applies}Trusted ${project}: its .mcp.json servers will run and its .turnloop/config.json applies whole.\n`;
  }
  const [{ project, wasTrusted }, { whatHeldKeysDo }] = await Promise.all([
    untrustProject(home, cwd),
    import("../session/project-holds.js"),
  ]);
  return wasTrusted
    ? `Untrusted ${project}: its .mcp.json servers no longer run and the keys of its .turnloop/config.json that ${whatHeldKeysDo(2)} are held again.\n`
    : `${project} was not trusted: nothing to take back.\n`;
}

/**
 * What trusting the project of `cwd` lets in, as the trust question of `-p` shows it
 * (cli/project-trust-question.ts): the keys of its `.turnloop/config.json` held until now
 * (session/project-holds.ts) with their values, its config's MCP servers and those of its
 * `.mcp.json`, each with its command line or URL; "" when nothing was held.
 */
async function whatTrustingApplies(home: string, cwd: string): Promise<string> {
  const { loadConfig } = await import("../session/config.js");
  const { holdUntrustedSettings } = await import("../session/project-holds.js");
  const { whatTrustingDoes } = await import("./project-trust-question.js");
  let held: ReturnType<typeof holdUntrustedSettings>["held"];
  try {
    ({ held } = holdUntrustedSettings(loadConfig(home, cwd, { ignoreErrors: true })));
  } catch {
    // An unreadable config file holds nothing; the trust is recorded all the same.
  }
  return whatTrustingDoes(held, cwd);
}

/** One row of `mcp list`: a configured server, or an untrusted project's server not started. */
type ListedServer =
  | McpServerSummary
  | { name: string; state: "untrusted"; type: string; toolCount: 0 };

/**
 * `mcp list`'s text: one line per server (name, type, state, tools, why it failed), the columns
 * aligned (each as wide as its widest entry, two spaces between), or a line saying there is none.
 */
function listing(rows: readonly ListedServer[], cwd: string): string {
  if (rows.length === 0) {
    return `No MCP servers configured for ${cwd}.\n`;
  }
  const cells = rows.map((row) => [
    row.name,
    row.type,
    row.state,
    `${row.toolCount} tool${row.toolCount === 1 ? "" : "s"}`,
    "error" in row && row.error !== undefined ? row.error : "",
  ]);
  const widths = [0, 1, 2, 3].map((column) =>
    Math.max(...cells.map((cell) => (cell[column] ?? "").length)),
  );
  return rows
    .map((row, index) => {
      const line = (cells[index] ?? [])
        // The last column (why it failed) is not padded.
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd();
      const renamed = "toolNotes" in row ? (row.toolNotes ?? []) : [];
      return `${line}\n${renamed.map((sentence) => `  ${sentence}\n`).join("")}`;
    })
    .join("");
}
