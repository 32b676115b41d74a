import { errorMessage } from "../events/errors.js";
import { trustProject } from "../session/config-paths.js";
import { type HeldSettings, loosenWhat } from "../session/project-holds.js";
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
  const keys = Object.keys(held.keys);
  const which = keys.length === 1 ? "which loosens" : "which loosen";
  terminal.output.write(
    `\n${held.path} sets ${keys.join(", ")}, ${which} ${loosenWhat(keys.length)}. This project ` +
      "is not trusted yet.\n" +
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
