import { errorMessage, warningLine } from "../events/errors.js";
import { askTrustOncePerRun } from "../session/config-paths.js";
import {
  type GatheredServers,
  gatherMcpServers,
  type McpSources,
  trustProject,
} from "../session/mcp-servers.js";

/**
 * Gathers a session's MCP servers for `turnloop -p`; when the project's `.mcp.json` has servers
 * and the project is not trusted yet, asks once on the terminal (`input` a TTY, the question on
 * `output`) and remembers a yes for this project path; after a no to this or the project's trust
 * question (project-trust-question.ts) in this run it asks nothing (config-paths.ts
 * `askTrustOncePerRun`). Without a terminal nothing is asked and the project's servers stay off.
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
  const question =
    `\n${untrustedServersQuestion(untrusted).join("\n")}\n` +
    "Trust this project (its MCP servers and its whole .turnloop/config.json) from now on? [y/N] ";
  const yes = await askTrustOncePerRun(sources.cwd, async () =>
    isYes(await askLine(terminal, question)),
  );
  if (!yes) {
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

/**
 * Drops what was typed on the terminal `input` before a question is shown: a line typed while
 * the model worked, or before the run asked, answers no question nobody had seen (the trial of
 * round 3 session 28 saw keys typed for a message answer the interactive session's questions).
 * What Node holds of it is read out, then what the terminal holds: Node's terminal stream (libuv's
 * tty handle) makes `input`'s descriptor non-blocking, so reading stops, EAGAIN, where the typing
 * does. Not a terminal: nothing is dropped (a pipe's lines are meant as the answers).
 * @returns whether anything was dropped.
 */
export function discardTypedAhead(input: NodeJS.ReadableStream): boolean {
  const terminal = input as { isTTY?: boolean; fd?: number; read?: () => unknown };
  if (terminal.isTTY !== true || typeof terminal.fd !== "number") {
    return false;
  }
  const { readSync } = process.getBuiltinModule("node:fs");
  const buffer = Buffer.alloc(4096);
  let dropped = false;
  for (;;) {
    try {
      if (readSync(terminal.fd, buffer) <= 0) {
        break;
      }
      dropped = true;
    } catch {
      // EAGAIN: nothing more was typed.
      break;
    }
  }
  while (terminal.read?.() != null) {
    dropped = true;
  }
  return dropped;
}

/** Whether `answer` says yes to a `[y/N]` question: `y` or `yes`, in any case. */
export function isYes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}

/**
 * Writes `question` to `terminal.output`, then gives the next line of `terminal.input` ("" at its
 * end) typed after it: what was typed before is dropped ({@link discardTypedAhead}) before the
 * question is shown, so a line typed at once in answer to it is never dropped with them. On a
 * terminal (`input` a TTY) the line is read in raw mode and edited as Node's readline edits one
 * (the question's last line its prompt, so that erasing redraws it): Esc answers at once with ""
 * (a no to a `[y/N]` question, as Esc is a no at the interactive screen's trust question: README),
 * instead of the terminal echoing `^[`, and Ctrl-C stops the process with SIGINT as the terminal
 * would. The reader is closed after it.
 */
export function askLine(
  terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
  question: string,
): Promise<string> {
  const { input, output } = terminal;
  discardTypedAhead(input);
  const tty = (input as { isTTY?: boolean }).isTTY === true;
  const promptAt = question.lastIndexOf("\n") + 1;
  output.write(tty ? question.slice(0, promptAt) : question);
  return new Promise((resolve) => {
    // Loaded at the first question, as in terminal-permission.ts: most runs ask none.
    const { createInterface } = process.getBuiltinModule("node:readline");
    const lines = tty
      ? createInterface({ input, output, terminal: true, historySize: 0 })
      : createInterface({ input, terminal: false });
    let answer = "";
    const finish = (line: string) => {
      answer = line;
      lines.close();
    };
    const onKey = (_text: unknown, key: { name?: string } | undefined) => {
      if (key?.name === "escape") {
        output.write("\n");
        finish("");
      }
    };
    lines.once("line", finish);
    lines.once("close", () => {
      input.removeListener("keypress", onKey);
      resolve(answer);
    });
    if (tty) {
      input.on("keypress", onKey);
      lines.once("SIGINT", () => {
        lines.close();
        process.kill(process.pid, "SIGINT");
      });
      lines.setPrompt(question.slice(promptAt));
      lines.prompt();
    }
  });
}
