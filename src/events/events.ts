/**
 * The session event union and its envelope: the single source of truth of a session.
 *
 * Every session is an append-only `events.jsonl`, one {@link SessionEvent} per line. Session state
 * is a fold over these events; every face (CLI, ACP, SDK server) is a view of them. Event names and
 * the envelope (`id`, `timestamp`, `parentId`, `ephemeral`) follow the Copilot SDK's session events.
 *
 * This module depends only on `event-parts.ts`, so every layer may import it.
 */

import type {
  CompactionTrigger,
  ErrorType,
  FileChange,
  FinishReason,
  HookType,
  IdleMode,
  JsonObject,
  JsonValue,
  KnownFile,
  PermissionDecision,
  PermissionScope,
  PlanEntry,
  ProviderMetadata,
  ReasoningPart,
  SessionResumeData,
  SessionShutdown,
  StopReason,
  ToolErrorCode,
  ToolRequest,
  TurnPurpose,
  TurnStatus,
  Usage,
  UserMessageData,
} from "./event-parts.js";

/** Every value type of the events, at the path all layers import. */
export type * from "./event-parts.js";

/** Maps each event type to its `data`. The comment on each names what ends or answers it. */
export interface SessionEventData {
  /** First event of every session. */
  "session.start": {
    sessionId: string;
    /** Schema version of this file's events. */ version: 1;
    producer: "turnloop";
    producerVersion: string;
    /** ISO-8601. */ startTime: string;
    cwd: string;
    model: string;
    /** A fork's (SDK `sessions.fork`, session/fork.ts): its source's id, marking its title. */
    forkedFrom?: string;
  };
  /** Appended when a session is reopened; lists the damage the reader skipped. */
  "session.resume": SessionResumeData;
  /** A prompt. Answered by the turns that follow and, finally, `session.idle`. */
  "user.message": UserMessageData;
  /**
   * One model API request, written when the request is sent (a failed attempt sent again counts
   * as a retry: session/usage-totals.ts). Ended by `assistant.turn_end` with the same `turnId`, after the tools of its reply.
   * `purpose` marks a request the loop makes for itself (absent: a turn of the conversation).
   */
  "assistant.turn_start": { turnId: string; purpose?: TurnPurpose };
  /** Streamed text of the message `messageId`; completed by `assistant.message`. */
  "assistant.message_delta": { messageId: string; deltaContent: string };
  /** Streamed reasoning of the message `messageId`; completed by `assistant.message`. */
  "assistant.reasoning_delta": { messageId: string; deltaContent: string };
  /** The complete reply of one model request. Each tool request gets one `tool.execution_complete`. */
  "assistant.message": {
    messageId: string;
    content: string;
    /** Reasoning text joined, for display. */
    reasoning?: string;
    /** Reasoning blocks with their provider data, replayed on later requests. */
    reasoningParts?: ReasoningPart[];
    toolRequests: ToolRequest[];
    finishReason: FinishReason;
    /** Provider data attached to the text (e.g. Responses API item id). */
    providerMetadata?: ProviderMetadata;
    /**
     * The reply was cancelled or broke off while streaming: `content` is what had been shown,
     * tool calls dropped.
     */
    interrupted?: true;
    /** Why an interrupted reply broke off, when it was not a cancel (the failure the prompt got). */
    error?: { errorType: ErrorType; message: string };
  };
  /**
   * Token usage of one model request. `cost` in USD, from the model catalogue (`llm/model-catalogue.ts`);
   * absent when the model's price is unknown.
   */
  "assistant.usage": Usage & { model: string; turnId: string; cost?: number };
  /**
   * A failed attempt of a model request that will be retried after `delayMs` (ms). Follows the
   * `assistant.turn_end` (status `failed`) of the attempt's turn `turnId`.
   */
  "assistant.retry": {
    turnId: string;
    attempt: number;
    statusCode?: number;
    errorType: ErrorType;
    errorMessage: string;
    delayMs: number;
  };
  /**
   * End of one turn, after its tools' results (and the plan or task completion they caused):
   * `completed`, `cancelled` (the request or a tool was), `failed` (`errorType` says why) or
   * `interrupted` (its process ended first; written when the session is reopened).
   * `stopReason`: the prompt stopped after it (a cancel: `abort`; a failure: `session.error`), so
   * followers see each prompt's end (issue 22). Older logs (turn_end first, `error`) still load.
   */
  "assistant.turn_end": {
    turnId: string;
    status: TurnStatus;
    finishReason?: FinishReason;
    errorType?: ErrorType;
    stopReason?: StopReason;
  };
  /**
   * The model started a tool call of the message `messageId`; its arguments are still streaming
   * (ephemeral). Completed by the `assistant.message` that lists the call.
   */
  "assistant.tool_call_start": { messageId: string; toolCallId: string; toolName: string };
  /**
   * A tool call is handled: its arguments are checked and permission asked. Ended by
   * `tool.execution_complete` with the same `toolCallId`.
   */
  "tool.execution_start": {
    toolCallId: string;
    toolName: string;
    arguments: JsonObject;
    /** For a tool of an MCP server: the server's name, and the tool's name there. */
    mcpServerName?: string;
    mcpToolName?: string;
  };
  /**
   * The tool of a call actually runs now: its arguments were valid and permission was granted or
   * not needed (ephemeral). Calls that are refused, unknown or invalid never get it.
   */
  "tool.execution_running": { toolCallId: string };
  /** Output so far of a running tool (ephemeral). */
  "tool.execution_partial_result": { toolCallId: string; partialOutput: string };
  /**
   * What a call waits on before its tool runs (Copilot's, ephemeral), e.g. `waiting for MCP
   * server fs to start (at most 57.3 s more)`; ended by its `tool.execution_running` or `_complete`.
   */
  "tool.execution_progress": { toolCallId: string; progressMessage: string };
  /** The one result of a tool call, whatever happened (success, error, denial, cancel, crash). */
  "tool.execution_complete": {
    toolCallId: string;
    toolName: string;
    success: boolean;
    /** Text given to the model. Present on success and on failure. Images as base64. */
    result: { content: string; images?: Array<{ mimeType: string; data: string }> };
    error?: { message: string; code: ToolErrorCode };
    /**
     * The exit code of a command the tool ran (`bash`), when it exited on its own. A non-zero
     * code makes the call `failed` on every face (session/ fold), though `success` stays true:
     * the model got the command's output, not an error.
     */
    exitCode?: number;
    /** The file the call viewed, edited or created, as the model now knows its text. */
    knownFile?: KnownFile;
    /** The whole text of the file a successful `edit` or `create` changed, before and after. */
    fileChange?: FileChange;
  };
  /** A tool call waits for the user's decision. Answered by `permission.completed`. */
  "permission.requested": {
    requestId: string;
    toolCallId: string;
    toolName: string;
    kind: string;
    title: string;
    /** Asking to run outside the sandbox a command it stopped: why it stopped it. */
    outsideSandbox?: string;
  };
  "permission.completed": {
    requestId: string;
    toolCallId: string;
    decision: PermissionDecision;
    scope: PermissionScope;
    /** The rule an `allowed`/`denied` for the session applies to, e.g. `bash(git status)`. */
    rule?: string;
    reason?: string;
  };
  "session.plan_updated": { entries: PlanEntry[] };
  /**
   * The instruction files that went into the system prompt (`AGENTS.md` and the like, see
   * `src/session/instructions.ts`), recorded when they first apply and whenever the set or the
   * warnings about it change;
   * `truncated`: cut (or left out whole: `bytes` 0). `appendedBytes`: `--append-system-prompt`'s.
   */
  "session.instructions_loaded": {
    files: Array<{
      path: string;
      scope: "user" | "project" | "system-prompt-file";
      bytes: number;
      truncated: boolean;
    }>;
    appendedBytes?: number;
    /** The `session.warning`s about these files (instructions.ts), absent when there were none. */
    warnings?: Array<{ warningType: string; message: string }>;
  };
  /** The model called `task_complete` (autopilot). */
  "session.task_complete": { summary: string; success: boolean };
  /**
   * Autopilot gave up before the model called `task_complete`: it nudged the model
   * `continues` times (`--max-autopilot-continues`) and the model stopped again (Copilot's
   * `session.autopilot_stopped {reason: "cap_reached"}`).
   */
  "session.autopilot_stopped": { reason: "cap_reached"; continues: number };
  /** A prompt failed (e.g. the provider after retries). The prompt is answered with an error. */
  "session.error": { errorType: ErrorType; message: string; statusCode?: number };
  /**
   * The prompt was cancelled; open tool calls have interrupted results before this. With
   * `droppedPromptIds` (issue 22): the ids (`user.message`'s `promptId`) of the queued prompts a
   * face on another worker sent that the same abort dropped unrun, on the cancelled prompt's own
   * abort; when the abort cancelled none (no prompt ran, or it had just ended), the SDK server
   * writes an abort of their own. Logs of earlier versions hold them on a second abort after the
   * cancelled prompt's. Absent otherwise.
   */
  abort: { reason: string; droppedPromptIds?: string[] };
  /** A compaction starts (Copilot's names; tokens); `session.compaction_complete` ends it. */
  "session.compaction_start": {
    trigger: CompactionTrigger;
    /** Tokens of the next request before compaction (reported usage plus an estimate). */
    currentTokens: number;
    /** The model's context window. */
    tokenLimit: number;
  };
  /**
   * The end of a compaction. On success the model's view becomes: the summary (a user-side
   * message), the latest user message when it was among the removed ones, then the view's
   * messages after the first `messagesRemoved` (src/agent/history.ts folds it so; the full
   * history stays in this log). `success: false` (with `error`) changes nothing.
   */
  "session.compaction_complete": {
    success: boolean;
    trigger: CompactionTrigger;
    preCompactionTokens: number;
    /** Estimated tokens of the next request after compaction. */
    postCompactionTokens?: number;
    /** Messages at the start of the model's view that the summary replaces (≥ 1 on success). */
    messagesRemoved?: number;
    summaryContent?: string;
    /** Instructions given to a manual compaction (`/compact …`). */
    customInstructions?: string;
    error?: string;
  };
  /**
   * Something the user should know that is not a failure (Copilot's event and fields), e.g.
   * `prompt_truncated`: the server reported far fewer prompt tokens than were sent; or an SDK
   * app's `session.log` at level `warning`.
   */
  "session.warning": { warningType: string; message: string; url?: string };
  /**
   * The loop ended, whatever the reason (ephemeral). `stopReason` is absent after an error. The
   * SDK server adds the Copilot SDK's `IdleData.aborted` (after a cancelled prompt) and `mode`.
   */
  "session.idle": { stopReason?: StopReason; aborted?: boolean; mode?: IdleMode };
  /**
   * A custom tool of an SDK app was called: the app runs it and answers with
   * `session.tools.handlePendingToolCall {requestId}` (Copilot SDK protocol v3, broadcast-event
   * pattern). Ended by `external_tool.completed` with the same `requestId`.
   */
  "external_tool.requested": {
    requestId: string;
    sessionId: string;
    toolCallId: string;
    toolName: string;
    arguments: JsonObject;
    /** The session's cwd, absolute. */
    workingDirectory: string;
  };
  /**
   * The app's answer to `external_tool.requested` arrived (`completed` / `failed`: the app
   * reported an error), or the prompt was cancelled before it did (`cancelled`; the call then
   * gets an interrupted result). Tells the app to stop working on `requestId`.
   */
  "external_tool.completed": {
    requestId: string;
    toolCallId: string;
    status: "completed" | "failed" | "cancelled";
  };
  /**
   * An MCP server of the session changed state (Copilot's event, ephemeral): `pending` while it
   * starts (with `error` past a prompt's start-up wait), `connected`, `failed` (with `error`; the
   * session goes on without it), `stopped` when the session closes. Not stored, as Copilot's: a
   * crash shows in the result of each call it failed (README "MCP servers").
   */
  "session.mcp_server_status_changed": {
    serverName: string;
    status: "pending" | "connected" | "failed" | "stopped";
    error?: string;
  };
  /** A hook of the SDK app is invoked (`hooks.invoke`). Ended by `hook.end` with the same id. */
  "hook.start": { hookInvocationId: string; hookType: HookType; input: JsonObject };
  /**
   * The hook's answer. `success: false` when the app failed, timed out or the prompt was
   * cancelled; the runtime then goes on as if the hook had no opinion.
   */
  "hook.end": {
    hookInvocationId: string;
    hookType: HookType;
    success: boolean;
    /** What the app returned (`null`: no opinion). Absent when it failed. */
    output?: JsonValue;
    error?: { message: string };
  };
  /**
   * The model (or its reasoning effort) changed, for the next requests (Copilot's event and
   * field names; `session.model.switchTo`, or a resume with another model).
   */
  "session.model_change": {
    previousModel?: string;
    newModel: string;
    previousReasoningEffort?: string;
    reasoningEffort?: string;
  };
  /** The session's mode changed (interactive, plan, autopilot, shell), from the next prompt. */
  "session.mode_changed": { previousMode: string; newMode: string };
  /**
   * Context window use after a model request (ephemeral; Copilot's `session.usage_info`): tokens
   * the last request's input held, the model's window (0 when unknown), messages in the history.
   */
  "session.usage_info": { currentTokens: number; tokenLimit: number; messagesLength: number };
  /** Prompts waiting behind the running one changed (ephemeral, no payload; Copilot's name). */
  "pending_messages.modified": Record<string, never>;
  /** A note for the timeline (an SDK app's `session.log`, level `info`; Copilot's fields). */
  "session.info": { infoType: string; message: string; url?: string; tip?: string };
  /**
   * The conversation was rewound (an SDK app's `session.history.truncate` or `.rewind`; Copilot's
   * event, kept on disk): the persisted events from `upToEventId` (included) up to this one,
   * `eventsRemoved` of them, stay in the log and every fold skips them (src/session/rewind.ts).
   */
  "session.snapshot_rewind": { upToEventId: string; eventsRemoved: number };
  /** The session's name was set (SDK `session.name.set`, `sessions.fork {name}`); kept on disk. */
  "session.title_changed": { title: string };
  /**
   * Grants replaced (SDK `session.permissions.resetSessionApprovals`, `modifyRules`; `sessions
   * import`: session/imported-log.ts): `allow`, `deny` are the rules (e.g. `bash(git status)`)
   * from now on, in place of earlier "always" answers'; a later "always" answer adds to them.
   */
  "session.grants_changed": { allow: string[]; deny: string[] };
  "session.shutdown": SessionShutdown;
}

export type SessionEventType = keyof SessionEventData;

/** Event types that are streamed to subscribers and never written to `events.jsonl`. */
const EPHEMERAL_TYPES = [
  "assistant.message_delta",
  "assistant.reasoning_delta",
  "assistant.tool_call_start",
  "tool.execution_running",
  "tool.execution_partial_result",
  "tool.execution_progress",
  "session.idle",
  "session.mcp_server_status_changed",
  "session.usage_info",
  "pending_messages.modified",
] as const satisfies readonly SessionEventType[];

/** The type of an event never written to `events.jsonl`. */
export type EphemeralEventType = (typeof EPHEMERAL_TYPES)[number];

/** Event types that are streamed to subscribers and never written to `events.jsonl`. */
export const EPHEMERAL_EVENT_TYPES: ReadonlySet<SessionEventType> = new Set(EPHEMERAL_TYPES);

/** The envelope around every event, on disk and on the wire. */
export type SessionEventOf<T extends SessionEventType> = {
  type: T;
  data: SessionEventData[T];
  /** UUID. */
  id: string;
  /** ISO-8601 with ms. */
  timestamp: string;
  /** Id of the previous persisted event; `null` for the first. Ephemeral events point at the last persisted one. */
  parentId: string | null;
  ephemeral?: true;
};

/** Any session event: a discriminated union on `type`. */
export type SessionEvent = { [T in SessionEventType]: SessionEventOf<T> }[SessionEventType];

/** An event before it gets its envelope: what the loop emits. */
export type EventInput = {
  [T in SessionEventType]: { type: T; data: SessionEventData[T] };
}[SessionEventType];

export function isEphemeral(type: SessionEventType): type is EphemeralEventType {
  return EPHEMERAL_EVENT_TYPES.has(type);
}

/** Whether `event` is never on disk (a reader of persisted logs returns before its switch). */
export function isEphemeralEvent(
  event: SessionEvent,
): event is Extract<SessionEvent, { type: EphemeralEventType }> {
  return isEphemeral(event.type);
}
