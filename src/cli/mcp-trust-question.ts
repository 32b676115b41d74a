import { errorMessage, warningLine } from "../events/errors.js";
import {
  type GatheredServers,
  gatherMcpServers,
  type McpSources,
  trustProject,
} from "../session/mcp-servers.js";

/**
 * Gathers a session's MCP servers for `turnloop -p`; when the project's `.mcp.json` has servers
 * and the project is not trusted yet, asks once on the terminal (`input` a TTY, the question on
 * `output`) and remembers a yes for this project path. Without a terminal nothing is asked and
 * the project's servers stay off.
 */
export async function gatherWithTrust(
  sources: McpSources,
  terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } | undefined,
): Promise<GatheredServers> {
  const gathered = await gatherMcpServers(sources);
  const untrusted = gathered.untrustedProject;
  if (untrusted === undefined || terminal === undefined) {
    return gathered;
  }
  // Loaded at the question only: most runs ask none (test/cli/modules-loaded*).
  const { untrustedServersQuestion } = await import("../session/trust-lines.js");
  terminal.output.write(
    `\n${untrustedServersQuestion(untrusted).join("\n")}\n` +
      "Trust this project (its MCP servers and its whole .turnloop/config.json) from now on? [y/N] ",
  );
  const answer = await readLine(terminal.input);
  if (!/^(y|yes)$/i.test(answer.trim())) {
    return gathered;
  }
  try {
    await trustProject(sources.home, sources.cwd);
  } catch (error) {
    terminal.output.write(
      `${warningLine(`could not remember the answer: ${errorMessage(error)}`)}\n`,
    );
  }
  return gatherMcpServers({ ...sources, trusted: true });
}

/** The next line of `input` ("" at its end); the reader is closed after it. */
export function readLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    // Loaded at the first question, as in terminal-permission.ts: most runs ask none.
    const { createInterface } = process.getBuiltinModule("node:readline");
    const lines = createInterface({ input, terminal: false });
    let answered = false;
    lines.once("line", (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once("close", () => {
      if (!answered) {
        resolve("");
      }
    });
  });
}
