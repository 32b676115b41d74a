/**
 * Public types of `turnloop/sdk`. Events are the runtime's own union (`src/events/events.ts`);
 * wire shapes come from `src/protocol/copilot.ts`, so the SDK and the server share one definition.
 */

import type { HookType } from "../events/events.js";
import type {
  Attachment,
  PermissionDecision,
  ProviderConfig,
  SessionMode,
  WirePermissionRequest,
} from "../protocol/copilot.js";
import type { HookInputBase, HookInputs, HookOutputs } from "../protocol/hooks.js";
import type { WireEvent } from "../protocol/wire-event.js";
import type { Tool } from "./tools.js";

export type {
  HookType,
  JsonObject,
  JsonValue,
  SessionEvent,
  SessionEventOf,
  SessionEventType,
  StopReason,
} from "../events/events.js";
export type {
  Attachment,
  ExternalToolResult,
  PermissionDecision,
  PermissionDecisionKind,
  PermissionKind,
  ProviderConfig,
  SessionCreateResult,
  SessionLifecycleNotification,
  SessionListEntry,
  SessionMode,
  ToolResultType,
  WirePermissionRequest,
} from "../protocol/copilot.js";
export type {
  AgentStopOutput,
  ErrorOccurredOutput,
  HookInputBase,
  HookInputs,
  HookOutputs,
  PostToolUseFailureOutput,
  PostToolUseOutput,
  PreToolUseOutput,
  PromptHookOutput,
  SessionStartOutput,
  UserPromptTransformedOutput,
} from "../protocol/hooks.js";
export type {
  WireEvent,
  WireEventOf,
  WireEventType,
  WireOnlyEventData,
} from "../protocol/wire-event.js";

/** How {@link TurnloopClient} reaches its server: a CLI it spawns (default), or a `port`. */
export interface TurnloopClientOptions {
  /**
   * The turnloop CLI to spawn: a `.js` file (run with this Node) or an executable. Default: the
   * `dist/cli/main.js` of the installed package. Spawned as `<cli> --headless --stdio ...cliArgs`.
   */
  cliPath?: string;
  /** Extra arguments, e.g. `["--model", "anthropic:claude-sonnet-4-5", "--allow-all-tools"]`. */
  cliArgs?: string[];
  /**
   * The working directory of the server this client spawns (default: `process.cwd()`), the folder
   * of its new sessions unless `cliArgs` has `--cwd`; with `port`, the folder of new sessions when
   * given (default: none, and new sessions work in the server's own `--cwd`). A session's own
   * `workingDirectory` wins either way.
   */
  cwd?: string;
  /**
   * The server's environment (model keys, `TURNLOOP_HOME` …). Default: `process.env`. Its
   * `TURNLOOP_HOOK_TIMEOUT_MS` is also when this client warns of a `preToolUse` guard that has not
   * answered (with `port`, give the server the same).
   */
  env?: NodeJS.ProcessEnv;
  /** Connect to a server already listening on `host:port` (`turnloop --headless --port N`). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The server's `TURNLOOP_CONNECTION_TOKEN`, sent in `connect`. */
  connectionToken?: string;
  /**
   * Receives the spawned server's stderr as it comes (chunks of text, not whole lines), instead
   * of the default: each line written to this process's stderr as `[turnloop server] <line>` (the
   * server's config warnings, what it says at exit), from its answer to `connect` on: a server
   * that fails to start says why in the error alone. Its end is kept for errors either way.
   */
  onStderr?: (text: string) => void;
}

/** A permission question, as `permission.requested` carries it, with its `requestId`. */
export type PermissionRequest = WirePermissionRequest & { requestId: string };

/**
 * Decides a permission question. Return `{kind: "approve-once"}`, `{kind:
 * "approve-for-session"}`, `{kind: "reject", feedback?}`, `{kind: "user-not-available"}`, or
 * `{kind: "no-result"}` to leave it to another client; a throw answers `user-not-available`.
 */
export type PermissionHandler = (
  request: PermissionRequest,
  invocation: { sessionId: string },
) => PermissionDecision | Promise<PermissionDecision>;

/**
 * Approves every request once (for trusted environments and tests), as the Copilot SDK's
 * `approveAll` does, except a request to run a command outside the sandbox
 * (`requestSandboxBypass: true`), which it rejects with feedback the model reads: leaving the
 * sandbox is a decision per command (README, "Sandbox"). Such requests reach only
 * `onSandboxBypassRequest` anyway; this holds where an app passes `approveAll` there.
 */
export const approveAll: PermissionHandler = (request) =>
  request.requestSandboxBypass === true
    ? {
        kind: "reject",
        feedback: "approveAll does not approve running a command outside the sandbox",
      }
    : { kind: "approve-once" };

/**
 * A hook handler: gets the hook's input (the wire's names: `cwd`, `timestamp` in ms since the
 * epoch, `stop_hook_active`), returns its output, or nothing for "no opinion". A handler that
 * throws has no opinion either (the log records the failure), and the server goes on without an
 * answer after 30 s (`TURNLOOP_HOOK_TIMEOUT_MS` in the server's environment, ms); except `onPreToolUse`, a guard, which fails closed (see there).
 */
export type HookHandler<Type extends HookType> = (
  input: HookInputBase & HookInputs[Type],
  context: { sessionId: string },
) => HookOutputs[Type] | undefined | Promise<HookOutputs[Type] | undefined>;

/**
 * Hooks by Copilot's handler names, called as the Copilot CLI calls them (the Copilot SDK's
 * `SessionHooks` in its `dist/types.d.ts`). For one prompt with a tool
 * call: `onSessionStart` (first prompt after create or resume), `onUserPromptSubmitted`,
 * `onUserPromptTransformed`, `onPreToolUse`, `onPostToolUse` or `onPostToolUseFailure`,
 * `onAgentStop`; `onSessionEnd` at `disconnect()`. Each call is recorded as `hook.start` /
 * `hook.end` events. Inputs: `HookInputs`, outputs: `HookOutputs` (src/protocol/hooks.ts).
 */
export interface SessionHooks {
  /**
   * `{toolName, toolArgs}` → `{permissionDecision?: "allow" | "deny" | "ask",
   * permissionDecisionReason?, modifiedArgs?, additionalContext?}` before a call's permission
   * question, and for a call of a tool that does not exist or whose arguments fail its schema
   * (output unused there). It fails
   * closed: a handler that throws, answers no such object (`"deny"`, `permissionDecision:
   * "DENY"`) or does not answer in time (30 s, {@link HookHandler}) denies the call (the model reads why; `hook.end` has
   * `success: false` and the reason), and the app gets a `TurnloopSdkWarning` process warning
   * once per cause and session.
   */
  onPreToolUse?: HookHandler<"preToolUse">;
  /**
   * `{toolName, toolArgs, toolResult: {textResultForLlm, resultType: "success"}}` →
   * `{modifiedResult?, additionalContext?}`, only after a call that succeeded (Copilot's
   * `resultType: "success"`): what every face shows completed.
   */
  onPostToolUse?: HookHandler<"postToolUse">;
  /**
   * `{toolName, toolArgs, error}` → `{additionalContext?}`, only after a call whose `resultType`
   * is `failure`: an error result, a `bash` command that exited non-zero or was killed, a tool
   * that does not exist, arguments that fail the tool's schema; `error` is the text the model reads. Not for a call refused (`denied`,
   * `rejected`), timed out or cancelled. The model reads `additionalContext` after the batch's
   * results as `Tool "<toolName>" failed. Additional guidance from postToolUseFailure hooks:`
   * and the text.
   */
  onPostToolUseFailure?: HookHandler<"postToolUseFailure">;
  /** `{prompt}` → `{modifiedPrompt?, additionalContext?}` before every prompt. */
  onUserPromptSubmitted?: HookHandler<"userPromptSubmitted">;
  /**
   * `{prompt, transformedPrompt}` → `{modifiedTransformedPrompt?}` after
   * `onUserPromptSubmitted`: replaces what the model reads as the prompt and the log keeps.
   */
  onUserPromptTransformed?: HookHandler<"userPromptTransformed">;
  /**
   * `{source: "new" | "resume", initialPrompt}` → `{additionalContext?}` before the first prompt
   * after create or resume: the context is a user message of its own just before the prompt.
   */
  onSessionStart?: HookHandler<"sessionStart">;
  /** `{reason: "user_exit"}` when the app disconnects; the output is recorded only. */
  onSessionEnd?: HookHandler<"sessionEnd">;
  /**
   * `{stopReason, transcriptPath, stop_hook_active}` → `{decision?: "block", reason?}` when a
   * prompt ends on its own: `block` goes on with `reason` as the next user message (at most 3
   * times in a row).
   */
  onAgentStop?: HookHandler<"agentStop">;
  /**
   * `{error, errorContext: "model_call", recoverable}` when a model request of a prompt failed
   * (after the server's own retries), before the failure ends the prompt →
   * `{errorHandling?: "retry" | "skip" | "abort", retryCount?, userNotification?}`: `retry` sends
   * the request again (`retryCount` times, default 1, at most 5), `skip` ends the prompt without
   * a failure, `abort` or nothing lets it fail; `userNotification` arrives as `session.info`
   * (`infoType: "notification"`). Details: `ErrorOccurredOutput`.
   */
  onErrorOccurred?: HookHandler<"errorOccurred">;
}

/**
 * A question of the model's `ask_user` tool (`userInput.request`; the Copilot SDK's
 * `UserInputRequest`): `choices` when the model offers some, `allowFreeform` whether another
 * answer is welcome (absent: yes).
 */
export interface UserInputRequest {
  question: string;
  choices?: string[];
  allowFreeform?: boolean;
}

/**
 * The user's answer (the Copilot SDK's `UserInputResponse`): `answer` is what the model reads,
 * `wasFreeform` whether it was typed rather than chosen.
 */
export interface UserInputResponse {
  answer: string;
  wasFreeform: boolean;
}

/**
 * Answers the model's `ask_user` question. A throw, or an answer without a string `answer`, is
 * what the model reads as "The user did not answer: <why>".
 */
export type UserInputHandler = (
  request: UserInputRequest,
  invocation: { sessionId: string },
) => UserInputResponse | Promise<UserInputResponse>;

/** A handler of the Copilot SDK's that turnloop does not call (see {@link SessionConfig}). */
export type UnusedCopilotHandler = (...args: never[]) => unknown;

/** `createSession` / `resumeSession` settings. */
export interface SessionConfig {
  /** `<provider>:<model>`, e.g. `anthropic:claude-sonnet-4-5`; default: the server's `--model`. */
  model?: string;
  /** BYOK endpoint (Copilot's `ProviderConfig`), with `model` as a bare name. */
  provider?: ProviderConfig;
  /** Tools the app runs; see {@link defineTool}. */
  tools?: Tool[];
  /**
   * Asked for calls that need approval. Absent: the server's default policy decides. Never asked
   * to run a command outside the sandbox: that is {@link onSandboxBypassRequest}'s.
   */
  onPermissionRequest?: PermissionHandler;
  /**
   * Asked whether a command the sandbox stopped may run again outside it, once (turnloop's: sent
   * as `requestSandboxBypass: true` in `session.create` / `session.resume`). The request is a
   * `shell` one with Copilot's `requestSandboxBypass: true` and `requestSandboxBypassReason` (why
   * the sandbox stopped it; also `sandbox.outsideReason`); `approve-once` runs it unconfined,
   * other answers as {@link PermissionHandler}, an "always" answer counting once. Absent: such
   * commands are not run outside the sandbox, and the model reads why and which setting lets the
   * sandbox allow it (README, "Sandbox"). `allowAllTools` and `onPermissionRequest` never
   * approve them.
   */
  onSandboxBypassRequest?: PermissionHandler;
  /**
   * Answers the questions of the model's `ask_user` tool, offered only when this is set (sent as
   * `requestUserInput: true`, the Copilot SDK's name and way).
   */
  onUserInputRequest?: UserInputHandler;
  /**
   * The Copilot SDK's handlers turnloop does not implement: accepted, sent as Copilot sends them
   * (`requestElicitation`, `requestExitPlanMode`, `requestAutoModeSwitch: true`; `onMcpAuthRequest`
   * by its name), and never called; the session's `session.warning` (`settings_ignored`) names
   * them as the app wrote them (copilot-names.ts `inAppNames`).
   */
  onElicitationRequest?: UnusedCopilotHandler;
  /** See {@link onElicitationRequest}. */
  onExitPlanModeRequest?: UnusedCopilotHandler;
  /** See {@link onElicitationRequest}. */
  onAutoModeSwitchRequest?: UnusedCopilotHandler;
  /** See {@link onElicitationRequest}. */
  onMcpAuthRequest?: UnusedCopilotHandler;
  /** Handlers the server calls (`hooks.invoke`) at each hook point; see {@link SessionHooks}. */
  hooks?: SessionHooks;
  /**
   * Called for every event, as `session.on(handler)`, but added before `session.create` /
   * `session.resume` is sent (the Copilot SDK's `onEvent`), so it receives the events the server
   * sends while it opens the session (`session.start`, an untrusted project's `session.warning`s).
   * Without it, the `session.warning`s among them are given once to the handlers added right
   * after the session is returned (before the app's code awaits anything else).
   */
  onEvent?: (event: WireEvent) => void;
  /** Stream `assistant.message_delta` events. Default: true. */
  streaming?: boolean;
  /** `append` (default) adds `content` to turnloop's system prompt; `replace` replaces it. */
  systemMessage?: { mode?: "append" | "replace"; content: string };
  /**
   * The folder a new session works in; default: the client's `cwd`, or, with `port` and no `cwd`,
   * the server's `--cwd`. A resumed session works in
   * its own folder: `resumeSession` with another is refused.
   */
  workingDirectory?: string;
  /** Run every tool without asking (deny rules still apply). */
  allowAllTools?: boolean;
  /** `interactive` (default), `plan`, `autopilot` or `shell` (see {@link SessionMode}). */
  mode?: SessionMode;
  /**
   * Only tools matching these filters are offered (`[]`: none; absent: all): a tool's name, or
   * Copilot's `builtin:<name>`, `custom:<name>`, `mcp:<server>-<tool>`, with `*` for every tool
   * of that source.
   */
  availableTools?: string[];
  /** Tools matching these filters (as `availableTools`) are not offered; this wins. */
  excludedTools?: string[];
  /** The app's name, put at the front of the model requests' user agent. */
  clientName?: string;
  /** Sent as `reasoning_effort` on the OpenAI wires (e.g. `low`, `medium`, `high`). */
  reasoningEffort?: string;
  /**
   * Compaction (the Copilot SDK's `infiniteSessions`): `backgroundCompactionThreshold`, a fraction
   * of the model's context window above 0 and at most 1, is where the history is compacted before
   * the next model request; `enabled: false` compacts only when the provider refuses a request
   * for its length.
   */
  infiniteSessions?: {
    enabled?: boolean;
    backgroundCompactionThreshold?: number;
    bufferExhaustionThreshold?: number;
  };
  /**
   * Where the session's commands run (README, "Sandbox"): `read-only`, `workspace-write` (in
   * bubblewrap) or `danger-full-access` (no sandbox); default: the server's (`--sandbox`, config).
   * turnloop's extension: the Copilot SDK's session config has no such field. A confining policy
   * where bubblewrap cannot run fails `createSession` / `resumeSession` with the reason.
   */
  sandbox?: "read-only" | "workspace-write" | "danger-full-access";
  /** Choose the new session's id (create only). */
  sessionId?: string;
  /**
   * MCP servers of the session by name (the Copilot SDK's `mcpServers`); they start with the
   * session, and their tools are offered as `<server>-<tool>` (the Copilot CLI's names). An entry
   * the server cannot start (no `command` or `url`, a `url` that is no http:// or https:// URL) is
   * left out and said as a `session.warning` event of the session, `warningType`
   * `mcp_server_not_started`, `message` naming the entry and why (`MCP server not started:
   * session mcpServers: server "bad": needs "command" (stdio) or "url" (http, sse)`): sent with
   * the opening events of `createSession`, just after `resumeSession`'s answer, and kept in the
   * log (`getMessages`). A server that fails later is a `session.mcp_server_status_changed` event
   * (`status` `failed`, with `error`).
   */
  mcpServers?: Record<string, McpServerEntry>;
}

/** `resumeSession` settings: a session's {@link SessionConfig} and what only a resume takes. */
export interface ResumeSessionConfig extends SessionConfig {
  /**
   * Take over the work the session's last app left waiting when it went away (a permission
   * question, a call of its tool; the Copilot SDK's `continuePendingWork`): every open question
   * is sent again, so `onPermissionRequest` answers the permission questions and the tools'
   * handlers the calls, and the prompt goes on. `false`: that work is cancelled (interrupted
   * results) and the session takes new prompts. Absent: as `false`, with no `session.resume`
   * event recorded when the session was open in the server already.
   */
  continuePendingWork?: boolean;
}

/**
 * One MCP server (the Copilot SDK's `MCPServerConfig`): a command speaking MCP on stdio, or a
 * Streamable HTTP (`http`) or HTTP+SSE (`sse`) URL. `tools` limits the tools offered (`["*"]`:
 * all); `timeout` bounds one tool call (ms).
 */
export type McpServerEntry = (
  | {
      type?: "local" | "stdio";
      command: string;
      args?: string[];
      env?: Record<string, string>;
      workingDirectory?: string;
    }
  | { type: "http" | "sse"; url: string; headers?: Record<string, string> }
) & { tools?: string[]; timeout?: number };
/** The answer of `session.history.compact` (Copilot's `HistoryCompactResult` fields). */
export interface HistoryCompactResult {
  /** Whether the history was compacted. */
  success: boolean;
  /** The history's tokens before the compaction less those after (tokens; 0 when it failed). */
  tokensRemoved: number;
  /** Messages replaced by the summary (a count). */
  messagesRemoved: number;
  /** The summary the model gets instead of them. */
  summaryContent?: string;
  /** Why nothing was compacted, when `success` is false. */
  error?: string;
}

/** `session.send` options. */
export interface MessageOptions {
  /** The prompt's text. */
  prompt: string;
  /** Files, folders, selections or images sent with the prompt (Copilot's `attachments`). */
  attachments?: Attachment[];
  /** `enqueue` (default) or `immediate` (ahead of other queued prompts). */
  mode?: "enqueue" | "immediate";
  /** This prompt only. */
  agentMode?: SessionMode;
}
