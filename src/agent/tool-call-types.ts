import type {
  EventInput,
  FileChange,
  KnownFile,
  ToolErrorCode,
  ToolRequest,
} from "../events/events.js";
import type { SecretValue } from "../events/secrets.js";
import type { Authorize } from "../permissions/permission-gate.js";
import type { CommandSetup } from "../tools/command-runner.js";
import type {
  AnyTool,
  ClientCapabilities,
  ToolEffect,
  ToolImage,
  ToolResult,
} from "../tools/define-tool.js";
import type { KnownFileHashes } from "../tools/tool-support.js";

/** The gate's types live with the gate (permissions/permission-gate.ts); the loop takes them. */
export type { Authorize, PermissionAnswer } from "../permissions/permission-gate.js";

/* What running a batch of tool calls (tool-calls.ts) takes from the loop and gives back. */

/**
 * Told of a call answered with an error without running (a tool that does not exist, arguments
 * that are no JSON, fail the tool's schema or were cut off at the output token limit: `code`), with
 * the error result the model reads for it (`message`), before that result is recorded; `start`
 * records `tool.execution_start` (the loop calls it after, if the callback did not). @returns
 * effects that go with the result (an SDK app's `postToolUseFailure` guidance: a `follow_up`).
 * Never rejects.
 */
export type CallNotRunCallback = (request: {
  code: ToolErrorCode;
  toolCall: ToolRequest;
  message: string;
  signal: AbortSignal;
  start: () => void;
}) => Promise<ToolEffect[]>;

/**
 * Asked about a call of a tool not offered: the tool when it is there now (an MCP server that was
 * still starting has connected), or what the call is answered with instead of "does not exist"
 * (its MCP server stopped, and why); undefined when it is unknown. Before it waits (for a server
 * still starting) it calls `waiting` once, with the server and what the call waits on (`waiting
 * for MCP server fs to start (at most 57.3 s more)`). Never rejects.
 */
export type UnavailableToolLookup = (
  toolName: string,
  signal: AbortSignal,
  waiting?: (wait: { serverName: string; message: string }) => void,
) => Promise<AnyTool | string | undefined>;

/** What executing a batch needs from the loop. */
export interface ToolCallContext {
  tools: ReadonlyMap<string, AnyTool>;
  cwd: string;
  sessionDirectory: string;
  authorize: Authorize;
  onCallNotRun?: CallNotRunCallback;
  unavailableTool?: UnavailableToolLookup;
  emit: (event: EventInput) => void;
  /**
   * Makes the events so far durable (the session store's commit); awaited before a tool runs,
   * unless the tool changes nothing (define-tool.ts `Tool.changesNothing`).
   */
  checkpoint?: () => Promise<void>;
  /**
   * Resolves once the store holds the events so far, durable or not (loop-types.ts
   * `Conversation.recorded`); awaited before a tool that changes nothing runs.
   */
  recorded?: () => Promise<void>;
  signal: AbortSignal;
  client?: ClientCapabilities;
  commands: CommandSetup;
  secrets: readonly SecretValue[];
  /** What the model knows of files' text (agent/history.ts), for `edit` and `create`. */
  knownFiles: KnownFileHashes;
}

/** One call's outcome as given to the model. */
export interface ToolCallOutcome {
  toolCall: ToolRequest;
  content: string;
  isError: boolean;
  errorCode?: ToolErrorCode;
  images?: ToolImage[];
  /** The exit code of the command the tool ran, when it exited on its own. */
  exitCode?: number;
  /** The failure as the user or app reads it, when it differs from `content` ({@link ToolResult.errorMessage}). */
  errorMessage?: string;
  /** The effects of a call that ran and succeeded ({@link ToolResult.effects}). */
  effects?: ToolEffect[];
  /** The file the call viewed, edited or created ({@link ToolResult.knownFile}). */
  knownFile?: KnownFile;
  /** The whole-file change of a successful `edit` or `create` ({@link ToolResult.fileChange}). */
  fileChange?: FileChange;
}

export interface ExecuteOptions {
  /** Runs none of the calls; each gets this error (e.g. another call's arguments were cut off). */
  refuse?: { code: ToolErrorCode; message: string };
  /**
   * Rewrites an outcome before it is recorded (the repetition guard adds its warning here, the
   * per-turn result budget cuts it).
   */
  adjust?: (outcome: ToolCallOutcome) => ToolCallOutcome | Promise<ToolCallOutcome>;
}
