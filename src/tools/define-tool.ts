import type { z } from "zod";
import type { FileChange, KnownFile, PlanEntry } from "../events/events.js";
import type { SecretValue } from "../events/secrets.js";
import type { CommandSetup } from "./command-runner.js";
import type { KnownFileHashes } from "./tool-support.js";

/** ACP v1 tool kinds (`ToolKind`), used by clients to pick icons and by the permission gate. */
export type ToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "other";

/**
 * What a face's client can do for tools instead of the local disk (ACP `fs/read_text_file`,
 * `fs/write_text_file`), so edits land in the editor's buffers. Tools use a member when present
 * and the disk otherwise. (The client's terminals come as a command runner: {@link CommandSetup}.)
 */
export interface ClientCapabilities {
  /**
   * Reads a text file (absolute path), unsaved editor changes included; with `lines`, only those
   * lines (fewer or none past the file's end), as ACP `fs/read_text_file` reads them.
   */
  readTextFile?(path: string, signal: AbortSignal, lines?: LineRange): Promise<string>;
  /** Writes a text file (absolute path). */
  writeTextFile?(path: string, content: string, signal: AbortSignal): Promise<void>;
}

/** Lines of a file: from `line` (1-based) on, at most `limit` of them (ACP `fs/read_text_file`). */
export interface LineRange {
  line: number;
  limit: number;
}

/** What a tool gets besides its arguments. */
export interface ToolContext {
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  /** The session's folder (`$TURNLOOP_HOME/session-state/<id>`), for files a tool saves (full outputs). */
  sessionDirectory: string;
  toolCallId: string;
  /** Aborted on cancel or timeout: stop work, kill children, return promptly. Always present. */
  signal: AbortSignal;
  /** The face's client, when it offers file access (ACP). */
  client?: ClientCapabilities;
  /**
   * Files the session's path deny rules and hidden places keep from this call (absolute paths,
   * links resolved or not; permissions/hidden-places.ts): a tool that searches or lists a folder
   * (`grep`, `glob`, `view` of a folder) leaves them out of its result. Absent: nothing is hidden.
   */
  hidden?: (path: string) => boolean;
  /**
   * How the session's commands run (the `bash` tool): the runner the session picked (a local
   * process, the ACP client's terminal, a sandbox) and the environment the session host hands down.
   */
  commands: CommandSetup;
  /** Values replaced by `[redacted:NAME]` in files a tool saves: the session host's secrets. */
  secrets: readonly SecretValue[];
  /**
   * What the model knows of files' text (the session's history folds it from the results'
   * {@link ToolResult.knownFile}): `edit` and an overwriting `create` refuse a file changed since.
   */
  knownFiles: KnownFileHashes;
  /** Streams partial output (e.g. a command's output so far); becomes `tool.execution_partial_result`. */
  onPartialResult?: (partialOutput: string) => void;
}

/**
 * What one call touches, for the permission gate and for clients (ACP `locations`, titles).
 * Paths are absolute; `command` is set for tools that run a shell command.
 */
export interface ToolCallScope {
  /** Short human title, e.g. `Read src/a.ts` or `Run git status`. */
  title: string;
  paths: string[];
  command?: string;
}

/** A tool's answer: data, never an exception. `content` is the text the model sees. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Images for models that take them in tool results (base64); others get `content` only. */
  images?: ToolImage[];
  /**
   * Why an error result failed, when it is not a plain failure: `denied` (a policy refused it) or
   * `rejected` (the user or app refused it), e.g. a Copilot SDK tool's `resultType`. Default: `failed`.
   */
  errorCode?: "denied" | "rejected";
  /** The exit code of the command the tool ran, when it exited on its own (`bash`). */
  exitCode?: number;
  /**
   * The file the call viewed, edited or created and its text as the model now knows it (`view`,
   * `edit`, `create`; tool-support.ts), recorded on `tool.execution_complete`.
   */
  knownFile?: KnownFile;
  /**
   * The whole text of the file a successful `edit` or `create` changed, before and after (within
   * tools/file-change.ts `MAX_FILE_CHANGE_CHARACTERS`), recorded on `tool.execution_complete`.
   */
  fileChange?: FileChange;
  /**
   * What the user or app reads as the failure (`tool.execution_complete` `error.message`) when it
   * differs from `content`, the model's text (a Copilot SDK app's handler error: the model reads
   * Copilot's "Tool execution failed"). Error results only.
   */
  errorMessage?: string;
  /**
   * What the call changes beyond its result, applied by the loop (src/agent/loop.ts) after the
   * reply's calls have their results and before the turn ends, in call order. Ignored on a call
   * the user cancelled, and on an error result except `follow_up`.
   */
  effects?: ToolEffect[];
}

/**
 * An effect of a successful call: `plan_updated` replaces the session's plan (recorded as
 * `session.plan_updated`, ACP `plan`); `task_complete` records `session.task_complete` (autopilot's
 * end, case 28) unless the prompt was cancelled; `stop` ends the prompt with `end_turn` once the
 * turn's calls are done, without another model request; `follow_up` is a user-side message the
 * model reads after the batch's results (recorded as `user.message` with source `hook`: a Copilot
 * SDK app's `postToolUseFailure` guidance, src/server/hooks.ts).
 */
export type ToolEffect =
  | { type: "plan_updated"; entries: PlanEntry[] }
  | { type: "task_complete"; summary: string; success: boolean }
  | { type: "stop" }
  | { type: "follow_up"; content: string };

/** An image in a tool result. */
export interface ToolImage {
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string;
  /** The bytes, base64-encoded. */
  data: string;
}

/** A tool the model can call. Build one with {@link defineTool}. */
export interface Tool<Input = unknown> {
  /** The name the model calls (Copilot CLI's names: `view`, `grep`, `glob`, `bash`, …). */
  name: string;
  /** What the model reads to decide when and how to call it. Keep it short: it is sent every request. */
  description: string;
  /** Validates and normalises the arguments; its JSON Schema is what the provider sees. */
  input: z.ZodType<Input>;
  kind: ToolKind;
  /** Whether a call can change anything outside the process. When in doubt, `true`. */
  mutates: boolean;
  /**
   * True only for a built-in tool no call of which can change anything, whatever its arguments and
   * whatever the user's rules or hooks do: `view`, `grep`, `glob`, `update_plan`, `task_complete`
   * (never an MCP tool, an SDK app's tool, `bash`, `edit`, `create`). The log is then not synced
   * before the call runs, only written (agent/tool-calls.ts): there is nothing a crash could leave
   * ahead of it, and the call and its result are synced at the turn's end (README, commit points).
   * Absent: synced before it runs.
   */
  changesNothing?: boolean;
  /**
   * Calls may run at the same time as the batch's other calls even though the tool mutates,
   * because something else orders its work (an SDK app runs its own tools, as with Copilot,
   * whose parallel custom-tool calls and their permission prompts arrive together).
   */
  concurrent?: boolean;
  /**
   * Runs the call. Must honour `context.signal` and should return errors as `{isError: true}`;
   * anything it throws is turned into an error result by the loop.
   */
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
  /**
   * Checks a validated call before its permission question, reading what `execute` would read
   * (an `edit` whose `old_str` does not match exactly once): `refused` answers the call with
   * `result` and nobody is asked; `ready` may carry the change the call would make, which the
   * question shows. Absent: nothing is checked before asking. Must not change anything.
   */
  check?(input: Input, context: ToolContext): Promise<ToolCheck>;
  /**
   * Describes what a validated call touches. Absent: the call is treated as touching nothing
   * but the tool itself (the gate then judges by `mutates` alone).
   */
  scope?(input: Input, cwd: string): ToolCallScope;
  /**
   * Set for a tool of an MCP server: the server's name and the tool's own name there. The
   * permission gate matches `mcp(<server>__<tool>)` rules against it; events and clients show it.
   */
  mcp?: McpToolOrigin;
}

/** What {@link Tool.check} found. */
export type ToolCheck =
  | { kind: "refused"; result: ToolResult }
  | { kind: "ready"; change?: FileChange };

/** Where an MCP tool comes from. */
export interface McpToolOrigin {
  serverName: string;
  /** The tool's name on its server (the model calls it `<server>__<tool>`). */
  toolName: string;
  /**
   * Its usual name, `<server>__<tool>` cleaned (tools/mcp/tools.ts `qualifiedToolName`), which
   * rules naming the tool match, whatever name it is offered under (`_2` when that one is taken).
   */
  qualifiedName: string;
}

/**
 * A tool whose input type has been erased, as held in a tool list. `execute` is declared as a
 * method, so its parameter is checked bivariantly and any `Tool<X>` fits here; the loop only ever
 * passes it what `input` parsed.
 */
export type AnyTool = Tool<unknown>;

/** Declares a tool; `mutates` defaults to `true`. */
export function defineTool<Input>(
  tool: Omit<Tool<Input>, "mutates"> & { mutates?: boolean },
): Tool<Input> {
  return { ...tool, mutates: tool.mutates ?? true };
}
