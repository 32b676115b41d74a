/**
 * A tool call as every face shows it, and the one rule that decides its outcome.
 *
 * State machine (DESIGN.md, "One fold"):
 * `pending` (the model asked for it) → `awaiting_permission` (a question is put to the user) →
 * `running` (the tool runs) → `completed` | `failed` | `denied` | `interrupted`. A call can skip
 * states (no question asked; refused before running) and a final state is final. It never goes
 * back but once: a command the sandbox stopped asks whether to run it again outside
 * (`running` → `awaiting_permission`, and back to `running` when allowed; issue 23).
 */

import type {
  FileChange,
  JsonObject,
  SessionEventData,
  ToolErrorCode,
} from "../../events/events.js";
import { commandStop, leftRunningIn } from "../../tools/bash.js";

/** Where a tool call stands. The last four are final. */
export type ToolCallStatus =
  | "pending"
  | "awaiting_permission"
  | "running"
  | "completed"
  | "failed"
  | "denied"
  | "interrupted";

/** The final states of a tool call. */
export type ToolCallOutcome = "completed" | "failed" | "denied" | "interrupted";

/** A permission question about a call and the user's answer. Times in ms since the epoch. */
export interface ToolCallPermission {
  requestId: string;
  kind: string;
  title: string;
  askedAt: number;
  answeredAt?: number;
  decision?: SessionEventData["permission.completed"]["decision"];
  scope?: SessionEventData["permission.completed"]["scope"];
  rule?: string;
  reason?: string;
  /**
   * A question to run outside the sandbox a command it stopped: why it stopped it (the
   * `permission.requested` event's `outsideSandbox`).
   */
  outsideSandbox?: string;
}

/**
 * One tool call, folded from `assistant.tool_call_start`, `assistant.message`,
 * `tool.execution_start`, `permission.*`, `tool.execution_running`, `tool.execution_partial_result`
 * and `tool.execution_complete`. Times are ms since the epoch (the events' timestamps).
 */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  /** Parsed arguments; `{}` until they are complete or when they were not a JSON object. */
  arguments: JsonObject;
  /** The argument text as streamed, when it was not a valid JSON object. */
  rawArguments?: string;
  argumentsError?: "truncated" | "invalid_json";
  /** The `messageId` of the reply that asked for the call, when known. */
  messageId?: string;
  mcpServerName?: string;
  status: ToolCallStatus;
  /** `tool.execution_start` (the call is handled). */
  startedAt?: number;
  /** `tool.execution_running` (live only: the event is not on disk). */
  runningAt?: number;
  /** `tool.execution_complete`. */
  endedAt?: number;
  /** Time spent waiting for the user's permission answers, ms. */
  permissionWaitMs: number;
  permission?: ToolCallPermission;
  /**
   * `endedAt − startedAt − permissionWaitMs`, ≥ 0: what the call took, the user's thinking aside.
   * Absent until the call ends, or when its start is unknown.
   */
  durationMs?: number;
  /** A command's exit code (`bash`), from the event or, in older logs, the result's last line. */
  exitCode?: number;
  /** The signal that killed a command, from the result's `<exited after signal S>` line. */
  signal?: string;
  /** The result text given to the model, without a command's closing `<exited …>` line. */
  output?: string;
  /**
   * What a command's result says after its closing `<exited …>` line (also the end of
   * {@link output}): the runner's notes on what the command's text does not show (a sandbox's
   * refused writes or private `/tmp`, processes stopped with it), shown under the call's line on
   * every face, a completed call's too.
   */
  note?: string;
  /**
   * The pids of the processes a command left running, as its {@link note} names them, or a
   * stopped command's result before its stop line (tools/bash.ts `leftRunningIn`); absent when
   * it names none.
   */
  leftRunning?: number[];
  /** Output so far of a running call (live). */
  partialOutput?: string;
  /**
   * What the call waits on before its tool runs (`tool.execution_progress`, live: e.g. `waiting
   * for MCP server fs to start (at most 57.3 s more)`) and since when (ms since the epoch); gone at its end.
   */
  progress?: { message: string; since: number };
  imageCount?: number;
  /** The whole-file change of a successful `edit` or `create`, when recorded (events.ts). */
  fileChange?: FileChange;
  errorCode?: ToolErrorCode;
  errorMessage?: string;
  /**
   * The result reached the faces but not the session log: the store refused its
   * `tool.execution_complete` (a full disk), which then came marked `ephemeral`, Copilot's
   * envelope field for an event not persisted (session-journal.ts). The call's state is the
   * result's; a resume records the call interrupted. Every face says it in {@link NOT_PERSISTED}'s
   * words.
   */
  resultNotPersisted?: true;
}

/**
 * What every face says of a call whose result the session log refused
 * ({@link ToolCall.resultNotPersisted}): after `-p`'s line, under the screen's, in ACP's update.
 */
export const NOT_PERSISTED = "its result is not in the session log: the log could not be written";

/** Whether a status is final. */
export function isFinished(status: ToolCallStatus): status is ToolCallOutcome {
  return (
    status === "completed" || status === "failed" || status === "denied" || status === "interrupted"
  );
}

/**
 * The closing line `bash` writes (src/tools/bash.ts): `<exited with exit code N>` or after a signal.
 * It is the result's last line, or followed by what the tool adds after it (the sandbox's note on
 * a command it stopped).
 */
const EXIT_LINE = /(?:^|\n)<exited (?:with exit code (-?\d+|null)|after signal (\w+))>(?=\n|$)/g;

/** What a result says, read once for every face. */
export interface ResultReading {
  status: ToolCallOutcome;
  exitCode?: number;
  signal?: string;
  /** The result text without the closing `<exited …>` line: what a face shows as the output. */
  output: string;
  /** The text after the closing line, trimmed, when there is any ({@link ToolCall.note}). */
  note?: string;
  /** The pids {@link note} names as left running ({@link ToolCall.leftRunning}). */
  leftRunning?: number[];
}

/**
 * The one rule of a call's outcome: not `success` → `denied` (the user or a hook refused),
 * `interrupted` (cancelled, or cut short by a crash), else `failed`; a success whose command
 * exited non-zero or was killed by a signal → `failed`; else `completed`. The exit code is
 * `data.exitCode`, or for logs written before that field, the `<exited with exit code N>` line.
 */
export function readResult(data: SessionEventData["tool.execution_complete"]): ResultReading {
  const content = typeof data.result?.content === "string" ? data.result.content : "";
  const exit = closingLine(content, data.exitCode);
  const parsedCode = exit?.[1] === undefined || exit[1] === "null" ? undefined : Number(exit[1]);
  const exitCode = data.exitCode ?? parsedCode;
  const signal = exit?.[2];
  const output = exit === undefined ? content : withoutLine(content, exit);
  const reading: ResultReading = { status: statusOf(data, exitCode, signal), output };
  const note = exit === undefined ? "" : content.slice(exit.index + exit[0].length).trim();
  if (note !== "") {
    reading.note = note;
  }
  // A stopped command has no exit line: its note comes before its stop line (tools/bash.ts).
  const left = exit === undefined ? leftRunningIn(content, true) : leftRunningIn(note);
  if (left.length > 0) {
    reading.leftRunning = left;
  }
  if (exitCode !== undefined) {
    reading.exitCode = exitCode;
  }
  if (signal !== undefined) {
    reading.signal = signal;
  }
  return reading;
}

/**
 * The last `<exited …>` line of `content`: taken when nothing but blanks follows it, or when it
 * states the exit code the result records (a note came after it); a line the command printed
 * itself is never the last one.
 */
function closingLine(
  content: string,
  recordedCode: number | undefined,
): RegExpExecArray | undefined {
  const last = [...content.matchAll(EXIT_LINE)].at(-1);
  if (last === undefined) {
    return undefined;
  }
  const atEnd = content.slice(last.index + last[0].length).trim() === "";
  return atEnd || (recordedCode !== undefined && last[1] === String(recordedCode))
    ? last
    : undefined;
}

/** `content` without the line `exit` matched (and without the blanks after it when it ended it). */
function withoutLine(content: string, exit: RegExpExecArray): string {
  const after = content.slice(exit.index + exit[0].length);
  return content.slice(0, exit.index) + (after.trim() === "" ? "" : after);
}

/**
 * How a command ended when it did not exit 0, in the words every face uses: `exit code N` or
 * `killed by SIGNAL`; undefined for a command that exited 0 and for any other tool's call.
 */
export function commandEnding(call: Pick<ToolCall, "exitCode" | "signal">): string | undefined {
  if (call.signal !== undefined) {
    return `killed by ${call.signal}`;
  }
  return call.exitCode === undefined || call.exitCode === 0
    ? undefined
    : `exit code ${call.exitCode}`;
}

/**
 * How a command's exit reads when it failed: `failed (exit code N)`; a command that exited 0 yet
 * failed is one the sandbox stopped after the fact (it undid what the command changed of what
 * later runs read: tools/bash.ts), so `stopped by the sandbox`.
 */
function failedCommand(exitCode: number | undefined): string {
  return exitCode === 0 ? "stopped by the sandbox" : `failed (exit code ${exitCode})`;
}

/** The words of a failure's error code, where they are finer than `failed`. */
const FAILURE_WORDS: Partial<Record<ToolErrorCode, string>> = {
  unknown_tool: "unknown tool",
  invalid_arguments: "invalid arguments",
  truncated_arguments: "truncated arguments",
  limit_reached: "limit reached",
};

/**
 * What a call's line says after its state when its command ran outside the sandbox, with a yes
 * to the question to run it there once the sandbox stopped it (permission-gate.ts
 * `createSandboxExitAsker`): `ran outside the sandbox (your yes)`; `undefined` for any other call.
 * The terminal faces say it on the call's line, where the terminal's width does not cut it, not
 * only in the result's first line (trial 40 F8).
 */
export function outsideSandboxWords(call: Pick<ToolCall, "permission">): string | undefined {
  const { permission } = call;
  return permission?.outsideSandbox !== undefined && permission.decision === "allowed"
    ? "ran outside the sandbox (your yes)"
    : undefined;
}

/**
 * A call's state in turnloop's words, the one every face writes (-p's and the terminal's tool
 * lines, `sessions show`, the export and the session view, ACP's `rawOutput.outcome`): the state
 * itself for `pending`, `running`, `completed` and `interrupted` (a cancel or a crash cut it:
 * the error code may say `cancelled`), and `awaiting permission`; for `denied`, the error code's
 * `rejected` (the user said no and why) or `denied`; for `failed`, how: a command's
 * `failed (exit code N)`, `killed by SIGNAL` or `stopped by the sandbox`, a `bash` command
 * stopped at its timeout `timed out after N s` (tools/bash.ts `commandStop`), `unknown tool`,
 * `invalid arguments`, `truncated arguments`, `limit reached`, else `failed`. Protocol fields
 * keep their own values (ACP's `ToolCallStatus`, Copilot's `success` and `error.code`).
 */
export function stateWords(
  call: Pick<
    ToolCall,
    "status" | "toolName" | "exitCode" | "signal" | "errorCode" | "output" | "errorMessage"
  >,
): string {
  switch (call.status) {
    case "pending":
    case "running":
    case "completed":
    case "interrupted":
      return call.status;
    case "awaiting_permission":
      return "awaiting permission";
    case "denied":
      return call.errorCode === "rejected" ? "rejected" : "denied";
    case "failed":
      return failureWords(call);
  }
}

function failureWords(
  call: Pick<
    ToolCall,
    "toolName" | "exitCode" | "signal" | "errorCode" | "output" | "errorMessage"
  >,
): string {
  if (call.signal !== undefined) {
    return `killed by ${call.signal}`;
  }
  if (call.exitCode !== undefined) {
    return failedCommand(call.exitCode);
  }
  const stop =
    call.toolName === "bash" ? commandStop(call.output ?? call.errorMessage ?? "") : undefined;
  if (stop !== undefined) {
    return stop.reason;
  }
  return (call.errorCode === undefined ? undefined : FAILURE_WORDS[call.errorCode]) ?? "failed";
}

/** The mark beside a finished call's line on every terminal face: ✓ completed, ⊘ interrupted, else ✗. */
export function outcomeSymbol(status: ToolCallStatus): "✓" | "✗" | "⊘" {
  return status === "completed" ? "✓" : status === "interrupted" ? "⊘" : "✗";
}

function statusOf(
  data: SessionEventData["tool.execution_complete"],
  exitCode: number | undefined,
  signal: string | undefined,
): ToolCallOutcome {
  if (!data.success) {
    switch (data.error?.code) {
      case "denied":
      case "rejected":
        return "denied";
      case "cancelled":
      case "interrupted":
        return "interrupted";
      default:
        return "failed";
    }
  }
  return (exitCode !== undefined && exitCode !== 0) || signal !== undefined
    ? "failed"
    : "completed";
}

/** The last `count` non-blank lines of `text`. */
export function lastLines(text: string, count: number): string[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-count);
}
