import { appendFile, readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { plainText } from "../../events/errors.js";
import type { SecretValue } from "../../events/secrets.js";
import type { ModelSettingNames } from "../../llm/models.js";
import type { SessionHost } from "../../session/host.js";
import { attachedFileBlock, ranEnding, shellContext } from "../../session/prompt-attachments.js";
import type { Session } from "../../session/session.js";
import type { CommandSetup } from "../../tools/command-runner.js";
import type { ConversationView } from "./conversation-view.js";

/** Entries of input history kept across sessions. */
const HISTORY_ENTRIES = 500;
/** Largest file `@path` attaches (bytes); bigger ones are named, not inlined. */
const ATTACHMENT_BYTES = 256 * 1024;
/** How long a `!command` may run (ms). */
const SHELL_TIMEOUT_MS = 120_000;

/**
 * How the interactive face's advice names the settings of its model (llm/models.ts
 * `ModelSettingNames`, given to the loop: agent/compaction-guard.ts): `/model` switches the
 * session's model where the user types (README, "Slash commands"); the context window is set as
 * turnloop starts, as on the command line, which its start-up errors name (`--model`).
 */
export const INTERACTIVE_SETTINGS: ModelSettingNames = {
  model: "/model",
  switchModel: "switch with /model",
  baseUrl: "--base-url or TURNLOOP_BASE_URL",
  resumeModel: "--model <provider>:<model>",
  environment: "",
  contextWindow: "--context-window or TURNLOOP_CONTEXT_WINDOW when starting turnloop",
};

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
 * {@link ATTACHMENT_BYTES} is added after the prompt in a fenced block headed by its path
 * (session/prompt-attachments.ts `attachedFileBlock`), so the model gets it with the prompt. Returns the prompt to send and the paths attached; a mention
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
      blocks.push(attachedFileBlock(shown, body));
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
  /** stdout and stderr interleaved; past the runner's limit its head and tail (the whole saved). */
  output: string;
  exitCode: number | null;
  signal: string | null;
  /** Set when the command was stopped: its timeout, or Esc / Ctrl-C. */
  stopped?: "timeout" | "cancelled";
}

/** Where a `!command` runs: the runner and environment the caller picked, and the session's folders. */
export interface ShellPlace {
  commands: CommandSetup;
  cwd: string;
  /** The session's folder; an output too long to show is saved under `user-commands/` in it. */
  sessionDirectory: string;
  secrets: readonly SecretValue[];
}

/** Where a `!command` runs in `session`: the host's runner, in the host's command environment. */
export function shellPlaceOf(
  host: Pick<SessionHost, "commands" | "secrets">,
  session: Pick<Session, "cwd" | "directory">,
): ShellPlace {
  const { commands, secrets } = host;
  return { commands, cwd: session.cwd, sessionDirectory: session.directory, secrets };
}

/**
 * Runs a `!command` typed by the user through `place.commands` (the caller chooses the runner:
 * the user's own command need not be confined as the model's are), in `place.cwd`; `signal`
 * (Esc / Ctrl-C) stops all of it, and so does a {@link SHELL_TIMEOUT_MS} timeout. `onOutput`
 * gets the output so far while it runs, as plain text (the runner's reports:
 * tools/command-runner.ts `onOutput`), as the bash tool's `tool.execution_partial_result`
 * carries it. Never rejects.
 */
export async function runShellCommand(
  command: string,
  place: ShellPlace,
  signal: AbortSignal,
  onOutput?: (output: string) => void,
): Promise<ShellResult> {
  const { runner, env } = place.commands;
  const stamp = new Date().toISOString().replace(/[^0-9]/g, "");
  const result = await runner.run(command, {
    cwd: place.cwd,
    env,
    signal,
    timeoutMs: SHELL_TIMEOUT_MS,
    savePath: join(place.sessionDirectory, "user-commands", `${stamp}.txt`),
    secrets: place.secrets,
    ...(onOutput === undefined ? {} : { onOutput: (output) => onOutput(plainText(output)) }),
  });
  return {
    command,
    // Plain text for the screen and the model, as the bash tool's (events/errors.ts plainText).
    output: plainText(result.startError ?? result.output),
    exitCode: result.exitCode,
    signal: result.signal,
    ...(result.stopped === undefined ? {} : { stopped: result.stopped }),
  };
}

/** How a `!command` ended, in a few words: `exit 3`, `stopped (SIGKILL)`, `timed out after 120 s`. */
export function shellEnding(result: ShellResult): string {
  switch (result.stopped) {
    case "timeout":
      return `timed out after ${SHELL_TIMEOUT_MS / 1_000} s`;
    case "cancelled":
      return "cancelled";
    case undefined:
      return result.exitCode === null
        ? `stopped (${result.signal ?? "error"})`
        : `exit ${result.exitCode}`;
  }
}

/**
 * The line under a `!command` that ended: how, and what goes to the model with the next prompt,
 * in the words a reopened session shows it with (session/prompt-attachments.ts `ranEnding`).
 */
export function shellNote(result: ShellResult): string {
  return ranEnding({ ending: shellEnding(result), output: result.output });
}

/**
 * Runs a `!command` the user typed ({@link runShellCommand}), drawn in `view`: its running frame
 * with the output so far, then its ending line ({@link shellNote}). Never rejects.
 * @returns what goes to the model with the next prompt (session/prompt-attachments.ts
 * `shellContext`).
 */
export async function runTypedCommand(
  command: string,
  place: ShellPlace,
  signal: AbortSignal,
  view: ConversationView | undefined,
): Promise<string> {
  const run = view?.shellRun(command);
  const result = await runShellCommand(command, place, signal, (output) => run?.progress(output));
  run?.end(result.output.replace(/\n$/, ""));
  view?.note(shellNote(result));
  return shellContext({ command, ending: shellEnding(result), output: result.output });
}
