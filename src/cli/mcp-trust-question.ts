import type { Interface } from "node:readline";
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

/** A terminal's input and where its questions are written. */
export interface LineTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * What a line question got: the line typed, or how it ended unanswered — `escape` (Esc, on a
 * terminal), `end` (end of input: Ctrl-D), `aborted` (the signal given to {@link lineQuestions}).
 */
export type LineAnswer = { line: string } | { ended: "escape" | "end" | "aborted" };

/** Line questions asked one after another on one terminal ({@link lineQuestions}). */
export interface LineQuestions {
  /** Writes `question` and gives the next line typed after it, or how the questions ended. */
  ask(question: string): Promise<LineAnswer>;
  /** Closes the reader (restoring the terminal's mode); pending and later asks end as `end`. */
  close(): void;
}

/**
 * The one reader of every line question (the trust questions, -p's permission question): asks
 * on `terminal.output` and reads `terminal.input`. What was typed before a question shows is
 * dropped ({@link discardTypedAhead}, and lines read but not yet asked for) on a terminal; from a
 * pipe every line is an answer, in order. On a terminal (`input` a TTY) a line is read in raw
 * mode and edited as Node's readline edits one (the question's last line its prompt, so that
 * erasing redraws it): Esc ends the questions at once (`escape`) instead of the terminal echoing
 * `^[`, and Ctrl-C stops the process with SIGINT as the terminal would. `signal`'s abort ends
 * them as `aborted`. Ended questions stay ended: later asks give the same ending.
 */
export function lineQuestions(terminal: LineTerminal, signal?: AbortSignal): LineQuestions {
  const { input, output } = terminal;
  discardTypedAhead(input);
  const tty = (input as { isTTY?: boolean }).isTTY === true;
  // Loaded at the first question, not when -p starts: most runs ask none (modules-loaded.test.ts).
  const { createInterface } = process.getBuiltinModule("node:readline");
  const lines = tty
    ? createInterface({ input, output, terminal: true, historySize: 0 })
    : createInterface({ input, terminal: false });
  const typed: string[] = [];
  let ended: "escape" | "end" | "aborted" | undefined;
  let waiting: ((answer: LineAnswer) => void) | undefined;
  const give = (answer: LineAnswer) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(answer);
  };
  const end = (how: "escape" | "end" | "aborted") => {
    ended ??= how;
    lines.close();
  };
  const stopKeys = tty ? terminalKeys(lines, terminal, () => end("escape")) : () => undefined;
  const onAbort = () => end("aborted");
  signal?.addEventListener("abort", onAbort, { once: true });
  lines.on("line", (line: string) => (waiting === undefined ? typed.push(line) : give({ line })));
  lines.once("close", () => {
    ended ??= "end";
    stopKeys();
    signal?.removeEventListener("abort", onAbort);
    give({ ended });
  });
  if (signal?.aborted === true) {
    end("aborted");
  }
  return {
    ask(question) {
      if (tty) {
        discardTypedAhead(input);
        typed.length = 0;
      }
      const promptAt = question.lastIndexOf("\n") + 1;
      output.write(tty ? question.slice(0, promptAt) : question);
      const line = typed.shift();
      if (line !== undefined || ended !== undefined) {
        return Promise.resolve(line === undefined ? { ended: ended ?? "end" } : { line });
      }
      if (tty) {
        lines.setPrompt(question.slice(promptAt));
        lines.prompt();
      }
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    close: () => end("end"),
  };
}

/**
 * The keys a line question on a terminal reads itself: Esc (the line break written, then
 * `onEscape`) and Ctrl-C (the reader closed, then SIGINT to this process, as the terminal would
 * send it). @returns what stops listening for Esc.
 */
function terminalKeys(lines: Interface, terminal: LineTerminal, onEscape: () => void): () => void {
  const onKey = (_text: unknown, key: { name?: string } | undefined) => {
    if (key?.name === "escape") {
      terminal.output.write("\n");
      onEscape();
    }
  };
  terminal.input.on("keypress", onKey);
  lines.once("SIGINT", () => {
    lines.close();
    process.kill(process.pid, "SIGINT");
  });
  return () => terminal.input.removeListener("keypress", onKey);
}

/**
 * Writes `question` to `terminal.output`, then gives the next line of `terminal.input` typed
 * after it, or "" at Esc (a no to a `[y/N]` question, as Esc is a no at the interactive screen's
 * trust question: README) and at end of input ({@link lineQuestions}). The reader is closed after it.
 */
export async function askLine(terminal: LineTerminal, question: string): Promise<string> {
  const questions = lineQuestions(terminal);
  try {
    const answer = await questions.ask(question);
    return "line" in answer ? answer.line : "";
  } finally {
    questions.close();
  }
}
