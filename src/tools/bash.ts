import { join } from "node:path";
import { z } from "zod";
import { plainText } from "../events/errors.js";
import type { BackgroundStop } from "./command-process.js";
import type { CommandRequest, CommandResult } from "./command-runner.js";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool.js";
import { type StoppedProcess, stillRunning } from "./pipe-holders.js";
import { errorResult, runGuarded, textResult } from "./tool-support.js";

/** Timeout when the model gives none, in seconds. */
const DEFAULT_TIMEOUT_SECONDS = 120;
/** Longest timeout a call may ask for, in seconds; a larger value is an invalid argument. */
const MAX_TIMEOUT_SECONDS = 600;

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const bashInput = z.lazy(() =>
  z.object({
    command: z.string(),
    description: z.string().optional().describe("A few words on what the command does"),
    timeout: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_SECONDS)
      .optional()
      .describe(`Seconds (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS})`),
  }),
);

/** Arguments of {@link bashTool}, as Copilot CLI's shell tool takes them. */
export type BashInput = z.infer<typeof bashInput>;

/**
 * `bash {command, description?, timeout?}`: runs the command with `bash -c` semantics through the
 * session's command runner (`context.commands`: a local process group, the ACP client's terminal,
 * a sandbox), in the session's cwd and the command environment the session host hands down.
 * Answers stdout and stderr interleaved, then `<exited with exit code N>` (Copilot CLI's format)
 * and the notes on background processes stopped with it and the runner's own (a sandboxed
 * command's private `/tmp`), and records the
 * exit code on the result. A non-zero exit is not an error result; a timeout
 * (seconds), a cancel or a failure to start is.
 */
export const bashTool = defineTool<BashInput>({
  name: "bash",
  description:
    "Run a bash command in the working directory. Returns stdout and stderr interleaved, then the " +
    "exit code. stdin is closed. Long output keeps its start and end; the rest is saved to a file.",
  input: bashInput,
  kind: "execute",
  mutates: true,
  execute: (input, context) => runGuarded("Command", context.signal, () => runBash(input, context)),
  scope: (input, cwd) => ({ title: `Run ${input.command}`, paths: [cwd], command: input.command }),
});

async function runBash(input: BashInput, context: ToolContext): Promise<ToolResult> {
  const timeoutSeconds = input.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  const savePath = join(
    context.sessionDirectory,
    "tool-outputs",
    `${context.toolCallId.replace(/[^A-Za-z0-9_.-]/g, "_")}.txt`,
  );
  const { runner, env, outside } = context.commands;
  const onPartialResult = context.onPartialResult;
  // The model reads text, not a screen, and so do the faces that show the output as it comes.
  const onOutput =
    onPartialResult === undefined
      ? undefined
      : (output: string) => onPartialResult(plainText(output));
  const request: CommandRequest = {
    cwd: context.cwd,
    env,
    signal: context.signal,
    timeoutMs: timeoutSeconds * 1_000,
    savePath,
    secrets: context.secrets,
    toolCallId: context.toolCallId,
    ...(onOutput === undefined ? {} : { onOutput }),
  };
  const result = await runner.run(input.command, request);
  const reason = result.sandboxLimit;
  if (reason === undefined || outside === undefined || context.signal.aborted) {
    return toolResultOf(result, timeoutSeconds, runner.stopDescription);
  }
  const { command } = input;
  const { toolCallId, signal } = context;
  const answer = await outside.ask({ toolCallId, command, reason, signal });
  if (!answer.allowed) {
    const stopped = toolResultOf(result, timeoutSeconds, runner.stopDescription);
    const content = `${stopped.content}\n${notRunOutside(reason, answer.reason)}`;
    // A failure even when the command exited 0: the sandbox removed what it made.
    return result.exitCode === 0 ? { ...stopped, content, isError: true } : { ...stopped, content };
  }
  const again = await outside.runner.run(command, request);
  const rerun = toolResultOf(again, timeoutSeconds, outside.runner.stopDescription);
  return { ...rerun, content: `${ranOutside(reason)}\n${rerun.content}` };
}

/**
 * Said to the model when a stopped command was not run again outside the sandbox: `refusal` is
 * why (the user said no; or nobody could be asked, and what would allow it).
 */
function notRunOutside(reason: string, refusal: string): string {
  return `The sandbox stopped this command: ${reason}. It was not run outside the sandbox: ${refusal}.`;
}

/** The last line {@link notRunOutside} writes. */
const NOT_RUN_OUTSIDE =
  /(?:^|\n)The sandbox stopped this command: [^\n]*\. It was not run outside the sandbox: [^\n]*\.$/;

/**
 * Whether a `bash` call's result says the sandbox stopped the command and it was not run again
 * outside (nobody could be asked, or the user said no): a refusal, which `-p` lists in
 * `permission_denials` with the calls refused before they ran (trial 47 F5).
 */
export function refusedOutsideSandbox(content: string): boolean {
  return NOT_RUN_OUTSIDE.test(content);
}

/** Said to the model before the output of a command run again outside the sandbox. */
function ranOutside(reason: string): string {
  return `The sandbox stopped this command (${reason}); the user allowed it to run again outside the sandbox:`;
}

/** The model's view of a command's result; the text stays Copilot CLI's. */
function toolResultOf(
  result: CommandResult,
  timeoutSeconds: number,
  stopDescription: string,
): ToolResult {
  if (result.startError !== undefined) {
    return errorResult(result.startError);
  }
  // Without the terminal's control sequences (a pager's or an editor's screen codes, colours).
  const text = plainText(result.output);
  const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  // Named only if still running as the result is made: one may have exited since the scan.
  const running = stillRunning(result.leftRunning ?? []);
  switch (result.stopped) {
    case "timeout":
    case "cancelled": {
      // Trial 47 F1: one outside the killed group (`(setsid server &)`) runs on; said before the
      // stop line, which stays the last (commandStop).
      const left = running.length === 0 ? "" : `${leftRunningNote(running, "was stopped")}\n`;
      const why = result.stopped === "timeout" ? timedOut(timeoutSeconds) : "cancelled";
      return errorResult(`${body}${left}Command ${why}; ${stopDescription}.`);
    }
    case undefined:
      break;
  }
  const left = running.length === 0 ? undefined : leftRunningNote(running, "exited");
  const note = [stoppedNote(result), left, result.note]
    .filter((line) => line !== undefined)
    .map((line) => `\n${line}`)
    .join("");
  const ending = textResult(`${body}${describeExit(result.exitCode, result.signal)}${note}`);
  return result.exitCode === null ? ending : { ...ending, exitCode: result.exitCode };
}

/** How a command stopped at its timeout is said, to the model and on every face. */
function timedOut(timeoutSeconds: number): string {
  return `timed out after ${timeoutSeconds} s`;
}

/** The last line of a command that the runner stopped: `Command <why>; <how it was stopped>.` */
const STOP_LINE = /(?:^|\n)Command (timed out after [\d.]+ s|cancelled); [^\n]*$/;

/**
 * Reads the result of a `bash` call that the runner stopped (its timeout, a cancel), as
 * {@link toolResultOf} wrote it: `reason` is why (`timed out after 2 s`, `cancelled`), `output`
 * what the command printed before. `undefined` for any other text.
 */
export function commandStop(content: string): { reason: string; output: string } | undefined {
  const match = STOP_LINE.exec(content);
  if (match?.[1] === undefined) {
    return undefined;
  }
  return { reason: match[1], output: content.slice(0, match.index) };
}

/**
 * Said after the exit line when background processes still held the command's output open when it
 * exited (tools/command-process.ts `BackgroundStop`): which were stopped, by pid and command line,
 * and how to keep one running (README, "Commands the model runs"); where they could not be told
 * apart, that the command's whole process group was stopped, a `nohup` one with it.
 */
export function backgroundStoppedNote(stop: BackgroundStop): string {
  const { processes } = stop;
  if (processes === undefined) {
    return "Background processes still held this command's output when it exited, so its whole process group was stopped, those started with `nohup` included. To keep one running, start it in a session of its own with its output sent elsewhere: `setsid nohup server > server.log 2>&1 &`.";
  }
  if (processes.length === 0) {
    return "Processes outside this command's process group still held its output when it exited: they were left running, and what they print is not read.";
  }
  const named = processes.map(({ pid, command }) => `${pid} \`${command}\``).join(", ");
  const which = processes.length === 1 ? "process" : "processes";
  return `The background ${which} that still held this command's output when it exited ${processes.length === 1 ? "was" : "were"} stopped: ${named}. Those whose output goes elsewhere run on: to keep one running, start it so: \`nohup server > server.log 2>&1 &\`.`;
}

/**
 * Said when a command (not in the sandbox) left processes running: which, by pid and command
 * line (tools/pipe-holders.ts `leftRunning`), for the model and every face's tool line, so that a
 * server or watcher left behind is known (trial 40 F12): after the exit line once it `exited`;
 * before the stop line once it `was stopped` (its timeout, a cancel: those outside its process
 * group, trial 47 F1).
 */
export function leftRunningNote(
  processes: readonly StoppedProcess[],
  ending: "exited" | "was stopped",
): string {
  const named = processes.map(({ pid, command }) => `${pid} \`${command}\``).join(", ");
  return `Left running after the command ${ending}: ${named}. They outlive this session: stop them (kill PID) when they are not needed.`;
}

/** The note {@link leftRunningNote} writes; group 1: its list, `PID \`command\``, comma-separated. */
const LEFT_RUNNING =
  /(?:^|\n)Left running after the command (?:exited|was stopped): (.*)\. They outlive this session/;

/**
 * The note of a stopped command ({@link leftRunningNote}), right before its stop line (the last,
 * or followed only by the loop's `[cancelled by …]` line).
 */
const LEFT_RUNNING_AT_STOP =
  /(?:^|\n)(Left running after the command was stopped: [^\n]*)\nCommand (?:timed out after [\d.]+ s|cancelled); [^\n]*(?:\n\[cancelled by [^\]\n]+\])?$/;

/**
 * The pids a command's result names as left running ({@link leftRunningNote}), in its order; `[]`
 * when it names none. `content` is the text after the exit line, or with `stopped` the whole
 * result of a stopped command. Read back by the session model (`ToolCall.leftRunning`) for the
 * faces that sum them up (`-p`'s closing summary, `left_running_pids`).
 */
export function leftRunningIn(content: string, stopped = false): number[] {
  const text = stopped ? (LEFT_RUNNING_AT_STOP.exec(content)?.[1] ?? "") : content;
  const list = LEFT_RUNNING.exec(text)?.[1] ?? "";
  return [...list.matchAll(/(?:^|, )(\d+) `/g)].map(([, pid]) => Number(pid));
}

/**
 * Said after the exit line when a sandboxed command left processes running (tools/sandbox/
 * left-running.ts): the sandbox ended them with it, `nohup` or not, so the model is told what
 * works there (README, "Sandbox": the user's own `!command` and `--sandbox danger-full-access`
 * run outside it). `count` is how many.
 */
export function sandboxStoppedNote(count: number): string {
  const processes = count === 1 ? "1 process" : `${count} processes`;
  return `The sandbox stopped ${processes} this command left running: in the sandbox every process a command starts ends with it, \`nohup\` and \`&\` included. Run what needs it in the same command (\`server & sleep 2; curl localhost:8080; kill %1\`), or ask the user to start it outside the sandbox.`;
}

/** The note on processes stopped with the command: the sandbox's count, else {@link backgroundStoppedNote}. */
function stoppedNote(result: CommandResult): string | undefined {
  if (result.sandboxStopped !== undefined && result.sandboxStopped > 0) {
    return sandboxStoppedNote(result.sandboxStopped);
  }
  return result.backgroundStopped === undefined
    ? undefined
    : backgroundStoppedNote(result.backgroundStopped);
}

function describeExit(code: number | null, signal: string | null): string {
  if (code === null) {
    return `<exited after signal ${signal ?? "unknown"}>`;
  }
  return `<exited with exit code ${code}>`;
}
