import { errorMessage } from "../events/errors.js";
import { trustProject } from "../session/config-paths.js";
import type { HeldSettings } from "../session/project-holds.js";
import { readLine } from "./mcp-trust-question.js";

/**
 * The trust question `turnloop -p` and the interactive face ask on a terminal, before the run
 * starts, when the project's `.turnloop/config.json` has keys held until the project is trusted
 * (session/project-holds.ts). A yes is recorded for the project (`trusted-projects.json`, the
 * same record `turnloop mcp trust` writes, which lets its `.mcp.json` servers start too).
 * @returns whether the user said yes (`y` or `yes`); the end of input is a no.
 */
export async function askProjectTrust(
  held: HeldSettings,
  project: { home: string; cwd: string },
  terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): Promise<boolean> {
  terminal.output.write(
    `\n${held.path} sets ${Object.keys(held.keys).join(", ")}, which loosen permissions or send ` +
      "data elsewhere. This project is not trusted yet.\n" +
      "Trust this project (its whole config and its MCP servers) from now on? [y/N] ",
  );
  const answer = await readLine(terminal.input);
  if (!/^(y|yes)$/i.test(answer.trim())) {
    return false;
  }
  try {
    await trustProject(project.home, project.cwd);
  } catch (error) {
    terminal.output.write(`turnloop: could not remember the answer: ${errorMessage(error)}\n`);
  }
  return true;
}
