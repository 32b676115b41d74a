import { join } from "node:path";
import { errorMessage } from "../events/errors.js";
import { askTrustOncePerRun, projectFolder, trustProject } from "../session/config-paths.js";
import { type HeldSettings, whatHeldKeysDo } from "../session/project-holds.js";
import { bounded, heldKeyLine, serverLine } from "../session/trust-lines.js";
import { askLine, isYes } from "./mcp-trust-question.js";

/**
 * The trust question `turnloop -p` and the interactive face ask on a terminal, before the run
 * starts, when the project's `.turnloop/config.json` has keys held until the project is trusted
 * (session/project-holds.ts). It shows what trusting would do: each held key with its value, and
 * each MCP server the project would start (its `.mcp.json` and the file's `mcpServers`) with its
 * command line or URL, every value bounded and safe to draw (session/trust-lines.ts). A yes is
 * recorded for the project (`trusted-projects.json`, the same record `turnloop mcp trust`
 * writes, which lets its `.mcp.json` servers start too); a no holds for the run: no other trust
 * question about the project is asked (config-paths.ts `askTrustOncePerRun`).
 * @returns whether the user said yes (`y` or `yes`); the end of input and Esc are a no.
 */
export async function askProjectTrust(
  held: HeldSettings,
  project: { home: string; cwd: string },
  terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): Promise<boolean> {
  const question =
    `\n${await whatTrustingDoes(held, project.cwd)}This project is not trusted yet.\n` +
    "Trust this project (its whole config and its MCP servers) from now on? [y/N] ";
  const yes = await askTrustOncePerRun(project.cwd, async () =>
    isYes(await askLine(terminal, question)),
  );
  if (!yes) {
    return false;
  }
  try {
    await trustProject(project.home, project.cwd);
  } catch (error) {
    terminal.output.write(`turnloop: could not remember the answer: ${errorMessage(error)}\n`);
  }
  return true;
}

/**
 * What is said after a no to {@link askProjectTrust} instead of the warning about the held keys
 * (session/project-holds.ts `heldSettingsWarning`), which the question has just listed:
 * `not trusted: not applying permissions.allow this run; \`turnloop mcp trust\` in the project
 * trusts it later` (the caller adds `turnloop: warning: `).
 */
export function declinedLine(held: HeldSettings): string {
  const keys = Object.keys(held.keys).filter((key) => key !== "mcpServers");
  return `not trusted: not applying ${keys.join(", ")} this run; \`turnloop mcp trust\` in the project trusts it later`;
}

/**
 * The lines of the question above its last two, also said by `turnloop mcp trust`: the held keys
 * and their values under the config file's path (none without `held`), then the MCP servers of
 * the project's `.mcp.json` under its path; "" when there is neither.
 */
export async function whatTrustingDoes(
  held: HeldSettings | undefined,
  cwd: string,
): Promise<string> {
  // Loaded at the question only, as the MCP config module is by every face (issue 26).
  const { parseServers, readServersFile } = await import("../tools/mcp/config.js");
  const settings = Object.entries(held?.keys ?? {}).flatMap(([key, value]) =>
    key === "mcpServers"
      ? Object.entries(parseServers(value, held?.path ?? "").servers).map(
          ([name, server]) => `MCP server ${serverLine(name, server)}`,
        )
      : [heldKeyLine(key, value)],
  );
  const mcpPath = join(projectFolder(cwd), ".mcp.json");
  const servers = Object.entries((await readServersFile(mcpPath)).servers).map(([name, server]) =>
    serverLine(name, server),
  );
  const indented = (lines: readonly string[]) => lines.map((line) => `  ${line}\n`).join("");
  return (
    (held === undefined
      ? ""
      : `${bounded(held.path)} ${whatHeldKeysDo(1)}:\n${indented(settings)}`) +
    (servers.length === 0
      ? ""
      : `${bounded(mcpPath)} starts MCP servers, programs from this project:\n${indented(servers)}`)
  );
}
