import { spawn } from "node:child_process";
import { appendFile, readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { errorMessage } from "../../events/errors.js";

/** Entries of input history kept across sessions. */
const HISTORY_ENTRIES = 500;
/** Largest file `@path` attaches (bytes); bigger ones are named, not inlined. */
const ATTACHMENT_BYTES = 256 * 1024;
/** Output of a `!command` kept for the screen and the model (characters). */
const SHELL_OUTPUT_CHARACTERS = 16_000;
/** How long a `!command` may run (ms). */
const SHELL_TIMEOUT_MS = 120_000;

/** `$TURNLOOP_HOME/input-history.jsonl`: one JSON string per line, oldest first. */
export function historyPath(home: string): string {
  return join(home, "input-history.jsonl");
}

/** The saved inputs, oldest first, at most {@link HISTORY_ENTRIES}; damaged lines are skipped. */
export async function readInputHistory(home: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(historyPath(home), "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") {
        entries.push(value);
      }
    } catch {
      // A torn or damaged line loses one entry, nothing else.
    }
  }
  return entries.slice(-HISTORY_ENTRIES);
}

/** Appends one input to the history file (mode 0600). Failures are ignored: history is a convenience. */
export async function saveInput(home: string, input: string): Promise<void> {
  await appendFile(historyPath(home), `${JSON.stringify(input)}\n`, { mode: 0o600 }).catch(
    () => undefined,
  );
}

/**
 * Attaches the files named `@path` in `text` (relative to `cwd`): each readable text file up to
 * {@link ATTACHMENT_BYTES} is added after the prompt in a fenced block headed by its path, so the
 * model gets it with the prompt. Returns the prompt to send and the paths attached; a mention
 * that is not a file is left as typed.
 */
export async function attachFiles(
  text: string,
  cwd: string,
): Promise<{ content: string; attached: string[]; problems: string[] }> {
  const mentions = [...text.matchAll(/(?:^|\s)@("[^"]+"|[^\s]+)/g)].map((match) =>
    (match[1] ?? "").replace(/^"|"$/g, ""),
  );
  const attached: string[] = [];
  const problems: string[] = [];
  const blocks: string[] = [];
  for (const mention of new Set(mentions)) {
    const path = resolve(cwd, mention);
    const shown = relative(cwd, path) || mention;
    try {
      const info = await stat(path);
      if (!info.isFile()) {
        continue;
      }
      if (info.size > ATTACHMENT_BYTES) {
        problems.push(`${shown} is ${info.size} bytes; not attached (the model can view it)`);
        continue;
      }
      const body = await readFile(path, "utf8");
      if (body.includes("\u0000")) {
        problems.push(`${shown} is not text; not attached`);
        continue;
      }
      attached.push(shown);
      blocks.push(
        `Attached file ${shown}:\n\`\`\`\n${body}${body.endsWith("\n") ? "" : "\n"}\`\`\``,
      );
    } catch {
      // Not a file (an e-mail address, a decorator): leave the text as typed.
    }
  }
  const content = blocks.length === 0 ? text : `${text}\n\n${blocks.join("\n\n")}`;
  return { content, attached, problems };
}

/** What a `!command` printed and how it ended. */
export interface ShellResult {
  command: string;
  /** stdout and stderr interleaved, cut to the last {@link SHELL_OUTPUT_CHARACTERS}. */
  output: string;
  exitCode: number | null;
  signal: string | null;
}

/**
 * Runs a `!command` typed by the user in `bash -c` in `cwd`, in its own process group so `signal`
 * (Esc / Ctrl-C) stops all of it. Never rejects.
 */
export function runShellCommand(
  command: string,
  cwd: string,
  signal: AbortSignal,
): Promise<ShellResult> {
  return new Promise((resolvePromise) => {
    let output = "";
    const child = spawn("bash", ["-c", command], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: SHELL_TIMEOUT_MS,
    });
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-SHELL_OUTPUT_CHARACTERS);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const stop = () => {
      try {
        if (child.pid !== undefined) {
          process.kill(-child.pid, "SIGTERM");
        }
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener("abort", stop, { once: true });
    child.on("error", (error) => {
      signal.removeEventListener("abort", stop);
      resolvePromise({ command, output: errorMessage(error), exitCode: null, signal: null });
    });
    child.on("close", (exitCode, exitSignal) => {
      signal.removeEventListener("abort", stop);
      resolvePromise({ command, output, exitCode, signal: exitSignal });
    });
  });
}

/** How a `!command`'s result is offered to the model with the next prompt. */
export function shellContext(result: ShellResult): string {
  const ending =
    result.exitCode === null
      ? `stopped by ${result.signal ?? "an error"}`
      : `exit code ${result.exitCode}`;
  return `The user ran \`${result.command}\` in the terminal (${ending}). Its output:\n\`\`\`\n${result.output.replace(/\n$/, "")}\n\`\`\``;
}
