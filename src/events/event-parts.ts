/**
 * The values session events carry: JSON, stop and finish reasons, usage, tool requests, hook and
 * compaction kinds. `events.ts` builds the event union from them and re-exports every one.
 *
 * This module has no dependencies, so every layer may import it.
 */

/** JSON value as it appears on disk and on the wire. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Opaque provider data that must be sent back exactly as received on later requests (reasoning
 * signatures, encrypted reasoning, Responses API item ids), keyed by provider name as the AI SDK's
 * `providerMetadata` / `providerOptions` are.
 */
export type ProviderMetadata = Record<string, JsonObject>;

/** ACP v1 stop reasons (prompt-turn). Every prompt ends with exactly one of them, or an error. */
export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

/** The Copilot SDK's `IdleData.mode` (CLI 1.0.85): the agent mode of the prompt that ran. */
export type IdleMode = "interactive" | "plan" | "autopilot";

/** Why a model stopped generating, normalised across providers (AI SDK finish reasons). */
export type FinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

/**
 * Why a model call was made, on `assistant.turn_start`: absent for the agent loop's own requests,
 * otherwise the job of the call (a compaction summary, a session title).
 */
export type TurnPurpose = "compaction" | "title";

/**
 * How a turn ended. `interrupted`: the process running it ended first, and reopening the session
 * closed it (src/session/open-work.ts). `error` is what earlier versions wrote for `failed`; it is
 * read, never written.
 */
export type TurnStatus = "completed" | "cancelled" | "failed" | "interrupted" | "error";

/** An image given with a prompt: base64 `data` of a `mimeType` image, and where it came from. */
export interface PromptImage {
  mimeType: string;
  /** Base64, without a `data:` prefix. */
  data: string;
  /** Where the client took it from (a URI, e.g. `file:///…/shot.png`), when it said. */
  uri?: string;
}

/** Where a user message came from. `autopilot` marks our own continuation nudge. */
export type UserMessageSource = "user" | "autopilot" | "hook";

/** Failure categories of a model call (case 17): what a client needs to decide what to do next. */
export type ErrorType =
  | "authentication"
  | "invalid_request"
  | "rate_limit"
  /**
   * The account's quota or credit is spent (OpenAI's `insufficient_quota`, Anthropic's "credit
   * balance is too low"), whatever the HTTP status: never sent again, unlike a `rate_limit`.
   */
  | "quota"
  | "overloaded"
  | "server"
  | "network"
  | "stalled"
  | "malformed_response"
  | "configuration"
  /** The request did not fit the model's context window (OpenAI's `context_length_exceeded`). */
  | "context_length_exceeded"
  | "internal"
  /** Not a model failure: the session's `events.jsonl` could not be written (disk full, I/O). */
  | "storage"
  /** Reported by an SDK app (`session.log` with level `error`), not by a model call. */
  | "app";

/** One block of reasoning ("thinking") as the provider sent it. */
export interface ReasoningPart {
  text: string;
  /** Signatures / encrypted content to replay verbatim (cases 22, 23). */
  providerMetadata?: ProviderMetadata;
  /**
   * The endpoint that issued {@link providerMetadata}, `<wire> <base URL>` (llm/base-url.ts
   * `endpointName`): only it can read an encrypted or signed block, so the part is sent back to it
   * alone (llm/convert.ts); absent in logs written before turnloop recorded it.
   */
  endpoint?: string;
}

/** A tool call the model asked for, as recorded in `assistant.message`. */
export interface ToolRequest {
  toolCallId: string;
  name: string;
  /**
   * Parsed arguments when they were a JSON object; `{}` when they were not (the raw text is then in
   * `rawArguments` and `argumentsError` says what was wrong), so replaying the history is always valid.
   */
  arguments: JsonObject;
  /** The argument text exactly as streamed, kept when it was not a valid JSON object (case 07, 13). */
  rawArguments?: string;
  /** Why the arguments could not be used: `truncated` (output limit) or `invalid_json`. */
  argumentsError?: "truncated" | "invalid_json";
  providerMetadata?: ProviderMetadata;
}

/** Token counts for one model request. A missing field means the provider did not report it (case 15). */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/**
 * A line of damage found and skipped while reading `events.jsonl`: torn, not JSON, not an event
 * (`invalid_event`), or an event that is not of the log's chain (src/session/event-log-reading.ts `LogChain`
 * `ChainBreak`: `duplicate_id`, `second_start`, `unknown_parent`).
 */
export interface RepairNote {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset of the line's start. */
  offset: number;
  /** Length in bytes of what was skipped or cut. */
  length: number;
  reason:
    | "torn_tail"
    | "invalid_json"
    | "invalid_event"
    | "duplicate_id"
    | "second_start"
    | "unknown_parent";
}

/**
 * How an app resumed a session, as the Copilot SDK's `session.resume` data reports it (present
 * when the app said `continuePendingWork`): whether work left waiting for an app goes on, and
 * whether the resume joined a prompt another app was driving.
 */
export interface ResumeDetails {
  continuePendingWork?: boolean;
  sessionWasActive?: boolean;
}

/** `session.resume`'s data: appended when a session is reopened. */
export type SessionResumeData = {
  resumeTime: string;
  eventCount: number;
  /** The damaged lines of the log the reader skipped or cut (every open lists them again). */
  repaired: RepairNote[];
  /** Tool calls left without a result given an interrupted one (results follow); absent: 0. */
  interruptedToolCalls?: number;
  /** Turns left open closed with status `interrupted` (their ends follow); absent: 0. */
  interruptedTurns?: number;
  /** Compactions left open closed as failed, interrupted (their ends follow); absent: 0. */
  interruptedCompactions?: number;
  /**
   * Prompts left without an end and no turn of theirs open (a process killed between two
   * turns), ended by a `session.error` that follows (session/open-work.ts); absent: 0.
   */
  interruptedPrompts?: number;
  /** What is new of `repaired` (unlisted by earlier resumes) and what was closed, said once. */
  notice?: string;
} & ResumeDetails;

/** One entry of the agent's plan (ACP `plan` update). */
export interface PlanEntry {
  content: string;
  priority: "high" | "medium" | "low";
  status: "pending" | "in_progress" | "completed";
}

/** Permission decisions recorded in `permission.completed`. */
export type PermissionDecision = "allowed" | "denied" | "cancelled";
/** How far a permission decision reaches. `session` holds for the rest of the session (and resume). */
export type PermissionScope = "once" | "session";

/**
 * Hooks an SDK app can register (Copilot SDK `SessionHooks`, wire names of `hooks.invoke`).
 * The runtime calls them at fixed points; see `src/server/hooks.ts` for what each output does.
 */
export type HookType =
  | "preToolUse"
  | "postToolUse"
  | "postToolUseFailure"
  | "userPromptSubmitted"
  | "userPromptTransformed"
  | "sessionStart"
  | "sessionEnd"
  | "agentStop"
  | "errorOccurred";

/** What started a compaction (Copilot's `CompactionTrigger`, the values turnloop uses). */
export type CompactionTrigger = "threshold" | "context_limit_retry" | "manual" | "model_switch";

/** Why a tool call failed, machine-readable. */
export type ToolErrorCode =
  | "unknown_tool"
  | "invalid_arguments"
  | "truncated_arguments"
  | "denied"
  | "rejected"
  | "cancelled"
  | "interrupted"
  | "limit_reached"
  | "failed";

/**
 * A file's text as the model knows it after a call that viewed, edited or created the file
 * (`tool.execution_complete`): its absolute path, links resolved, and the SHA-256 (hex) of its
 * text as UTF-16 code units, a leading byte order mark left out. An `edit` or an overwriting
 * `create` of the file is refused while its text no longer has that hash (tools/tool-support.ts `KnownFiles`).
 */
export interface KnownFile {
  path: string;
  sha256: string;
}

/**
 * A file's whole text before and after a successful `edit` or `create` (`tool.execution_complete`
 * `fileChange`), what ACP's `diff` tool-call content carries (reference/acp.md, ToolCallContent:
 * whole-file text, not a patch): `path` absolute, `oldText` null for a file that did not exist.
 * Recorded only when both texts are at most tools/file-change.ts `MAX_FILE_CHANGE_CHARACTERS`
 * UTF-16 units; absent otherwise, and in logs written before the field.
 */
export interface FileChange {
  path: string;
  oldText: string | null;
  newText: string;
}

/**
 * `session.shutdown`: the session was closed by its SDK app (detach, destroy, `session.shutdown`,
 * the connection lost, the server stopping), with the metrics of the whole session (Copilot's
 * event and field names: the Copilot SDK's `ShutdownData`). `sessionStartTime` in ms since the
 * epoch; `totalApiDurationMs` sums, over the conversation's model requests, the time from sending
 * the request to its complete reply; `modelMetrics` is keyed by the model of each request;
 * `codeChanges` counts the lines of successful `edit` and `create` calls.
 */
export interface SessionShutdown {
  shutdownType: "routine" | "error";
  errorReason?: string;
  sessionStartTime: number;
  totalApiDurationMs: number;
  modelMetrics: Record<
    string,
    {
      requests: { count: number; cost: number };
      usage: {
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheWriteTokens: number;
      };
    }
  >;
  codeChanges: { linesAdded: number; linesRemoved: number; filesModified: string[] };
  currentModel: string;
  /** Tokens the last request's input held (0 before any request). */
  currentTokens: number;
  eventsFileSizeBytes?: number;
}

/**
 * One content block of a prompt as the client sent it, kept as sent: ACP v1 `ContentBlock`s
 * (`text`, `resource_link`, `resource`, an image of a type models do not take), or the text an
 * SDK app sent. `type` names the block; the other fields are the protocol's, except that a text
 * block's `text` or an embedded resource's `resource.text` that `content` holds verbatim is kept
 * there only, as `textInContent` `{start, length}` (session/prompt-attachments.ts
 * `TextInContent`; `givenPrompt` puts it back). Logs of earlier versions hold the text here too.
 */
export type PromptBlock = { type: string } & JsonObject;

/** The data of `user.message`: a prompt. */
export interface UserMessageData {
  /** The prompt as the model reads it (attachments and a face's additions rendered as text). */
  content: string;
  source: UserMessageSource;
  /**
   * The prompt as the user gave it, in order, when `content` is more than that: an ACP prompt
   * with a resource or a link, an SDK prompt whose attachments or `userPromptSubmitted` hook
   * changed the text. Images given to the model are in `images`, not here. Absent in logs of
   * earlier versions and for a prompt that is its own `content` (session/prompt-attachments.ts
   * `givenPrompt` reads both).
   */
  contentBlocks?: PromptBlock[];
  attachments?: JsonValue[];
  /** Images given with the prompt (e.g. a pasted screenshot), in prompt order. */
  images?: PromptImage[];
  /** The Copilot SDK's agent mode the prompt ran in (interactive, plan, autopilot, shell). */
  agentMode?: string;
  /**
   * The id a face on another worker gave the prompt it sent through the inbox (issue 22), or
   * else the `messageId` that the prompt's `session.send` answered (src/server/send-job.ts), so
   * the sender finds its prompt among the stored ones; absent for every other prompt.
   */
  promptId?: string;
}
