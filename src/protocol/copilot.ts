/**
 * The wire of `turnloop --headless`: JSON-RPC 2.0 with LSP-style `Content-Length` framing, the
 * core of the Copilot SDK protocol (version 3, `SDK_PROTOCOL_VERSION` of `@github/copilot-sdk`
 * 1.0.14).
 * Types only, plus constants: the server (`src/server`) and the SDK (`src/sdk`) both import this
 * module, and the SDK imports nothing of the server.
 *
 * Field names are Copilot's wherever Copilot has the field; turnloop additions are marked.
 */

import type { JsonObject } from "../events/events.js";
import type { WireEvent } from "./wire-event.js";

/** `connect` / `ping` report this; the Copilot SDK accepts 3..3. */
export const PROTOCOL_VERSION = 3;

/** JSON-RPC error codes the server answers with. */
export const ErrorCode = {
  /** Unknown method (JSON-RPC). */
  methodNotFound: -32601,
  /** Params that do not fit the method; the message says what is wrong (JSON-RPC). */
  invalidParams: -32602,
  /** A bug or an I/O failure (JSON-RPC). */
  internalError: -32603,
  /** TCP with a connection token: `connect` has not been sent with the right token (ours). */
  unauthorized: -32001,
} as const;

/**
 * Messages the server sends to the client: the two notifications, and the request by which the
 * server asks the app to run a hook (answered with {@link HooksInvokeResult}).
 */
export const ServerToClient = {
  sessionEvent: "session.event",
  sessionLifecycle: "session.lifecycle",
  hooksInvoke: "hooks.invoke",
  /** The model's `ask_user` question, to the app that set `requestUserInput` (server/ask-user.ts). */
  userInputRequest: "userInput.request",
} as const;

/** `session.event` notification: every event, ephemeral ones included, in emission order. */
export interface SessionEventNotification {
  sessionId: string;
  /**
   * The event as in `events.jsonl`, or one only the wire has (`assistant.idle`: wire-event.ts). A
   * few carry extra wire-only fields for Copilot SDK apps:
   * `permission.requested.data.permissionRequest` ({@link WirePermissionRequest}) and
   * `permission.completed.data.result` (`{kind}`).
   */
  event: WireEvent;
}

export type LifecycleType = "session.created" | "session.updated" | "session.deleted";

/** `session.lifecycle` notification. `updated` follows every prompt's end. */
export interface SessionLifecycleNotification {
  type: LifecycleType;
  sessionId: string;
  metadata?: { startTime: string; modifiedTime: string; summary?: string };
}

/**
 * Copilot's session modes: `interactive` (the default); `plan` (only tools that change nothing
 * are offered, and the model is told to plan, not to make changes); `autopilot` (keep working
 * until `task_complete`); `shell` (the prompt is a shell command: the model is told to run it with
 * `bash` and report what it printed).
 */
export type SessionMode = "interactive" | "plan" | "autopilot" | "shell";

/** A custom tool the app declares in `session.create` / `session.resume`. */
export interface ToolDeclaration {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema); absent = any object. */
  parameters?: JsonObject;
  /** Run without asking for permission. Default: ask, like any tool that may change things. */
  skipPermission?: boolean;
  /** Replace the built-in tool of the same name (otherwise a clash is an error). */
  overridesBuiltInTool?: boolean;
  /**
   * turnloop: the tool changes nothing outside the app. Calls may then run in parallel with other
   * read-only calls and without asking. Default: false (asks; runs in order).
   */
  readOnly?: boolean;
}

/** Copilot's BYOK provider (`ProviderConfig`), mapped onto turnloop's model ids. */
export interface ProviderConfig {
  type?: "openai" | "azure" | "anthropic";
  wireApi?: "completions" | "responses";
  baseUrl: string;
  apiKey?: string;
  bearerToken?: string;
  /** Sent with every request to this provider. */
  headers?: Record<string, string>;
  /** The model's catalogue id: its name when `model` is absent. */
  modelId?: string;
  /** The model name sent on the wire (wins over `model` and `modelId`). */
  wireModel?: string;
}

/**
 * `session.create` params (the subset turnloop reads). Other Copilot fields are accepted and
 * ignored, and said in a `session.warning` when they ask for something (session-settings.ts,
 * `COPILOT_ONLY_SETTINGS`; the schemas the server parses with are there too).
 */
export interface SessionCreateParams {
  /** Client-chosen id (the Copilot SDK always sends one); a fresh UUID when absent. */
  sessionId?: string;
  /** `<provider>:<model>` (turnloop ids), or a bare model name used with `provider`/the default. */
  model?: string;
  provider?: ProviderConfig;
  tools?: ToolDeclaration[];
  /**
   * `append` (default) adds `content`; `replace` uses `content` alone; `customize` applies
   * `sections` (Copilot's ids: identity, environment_context, guidelines, last_instructions map
   * onto turnloop's prompt; others append their content) with `replace`, `remove`, `append`,
   * `prepend`, `preserve`, or `transform` (the server asks the app with `systemMessage.transform`).
   */
  systemMessage?: {
    mode?: "append" | "replace" | "customize";
    content?: string;
    sections?: Record<string, { action: string; content?: string }>;
  };
  /** The app answers `permission.requested`; otherwise the default policy decides. */
  requestPermission?: boolean;
  /** The app answers `userInput.request`: the model is offered the `ask_user` tool. */
  requestUserInput?: boolean;
  /** The app answers `hooks.invoke`. */
  hooks?: boolean;
  /**
   * `true`: streamed model requests and `assistant.message_delta` / `assistant.reasoning_delta`
   * events. Otherwise (Copilot's default) non-streaming requests and no deltas.
   */
  streaming?: boolean;
  /**
   * Only tools matching these filters are offered; `[]`: none. Absent: all. A filter is a tool
   * name (any source) or Copilot's `builtin:<name>`, `custom:<name>`, `mcp:<name>`, with `*`
   * for every tool of that source.
   */
  availableTools?: string[];
  /** Tools matching these filters (as `availableTools`) are not offered; this wins. */
  excludedTools?: string[];
  /** Copilot's default agent config: its `excludedTools` are excluded for the session. */
  defaultAgent?: { excludedTools?: string[] };
  /** The app's name, put at the front of the model requests' user agent. */
  clientName?: string;
  /**
   * Recorded with the model (`session.model_change`, `session.model.getCurrent`) and sent as
   * `reasoning_effort` on the OpenAI wires.
   */
  reasoningEffort?: string;
  workingDirectory?: string;
  /** turnloop: run every tool without asking (deny rules still apply). */
  allowAllTools?: boolean;
  /** turnloop: initial mode; default `interactive`. */
  mode?: SessionMode;
}

/** `session.resume` params: `sessionId` plus the create config (tools, handlers, model …). */
export interface SessionResumeParams extends SessionCreateParams {
  sessionId: string;
}

/** Result of `session.create` and `session.resume`. */
export interface SessionCreateResult {
  sessionId: string;
  /** The session's folder: `$TURNLOOP_HOME/session-state/<id>`. */
  workspacePath: string;
  startTime: string;
  isRemote: false;
  mode: SessionMode;
  capabilities: { ui: { elicitation: false } };
  modelState: { modelId: string };
}

/** A file the prompt refers to (Copilot `Attachment`, the kinds turnloop reads). */
export type Attachment =
  | { type: "file" | "directory"; path: string; displayName?: string }
  | {
      type: "selection";
      filePath: string;
      text: string;
      displayName?: string;
      /** 0-based lines. */
      selection?: { start: { line: number }; end: { line: number } };
    }
  /** Base64 `data`; saved under the session folder and tagged for the model's `view`. */
  | { type: "blob"; data: string; mimeType: string; displayName?: string };

/** `session.send` params. Answered at once with `{messageId}`; the loop runs on. */
export interface SessionSendParams {
  sessionId: string;
  prompt: string;
  attachments?: Attachment[];
  /** `enqueue` (default): after what is running; `immediate`: next, ahead of other queued sends. */
  mode?: "enqueue" | "immediate";
  /** This prompt only; default: the session's mode. */
  agentMode?: SessionMode;
  /** HTTP headers added to this prompt's model requests. */
  requestHeaders?: Record<string, string>;
}

/** One line of `session.list`. */
export interface SessionListEntry {
  sessionId: string;
  startTime: string;
  modifiedTime: string;
  isRemote: false;
  /** The first prompt, on one line. */
  summary?: string;
  /**
   * The name the session was given (`session.name.set`, `setAuto`, a fork's name), when it has
   * one: Copilot's `LocalSessionMetadataValue.name` (`@github/copilot-sdk` 1.0.14
   * `dist/generated/rpc.d.ts`).
   */
  name?: string;
  context?: { cwd: string };
  /**
   * turnloop: model id from `session.start`, turns so far (a failed attempt sent again is not
   * one: session-metadata.ts `LogScan`), damage when unreadable.
   */
  model?: string;
  turns: number;
  problem?: string;
  /**
   * turnloop: the last prompt has no end and no live process holds the session (its process
   * ended mid-prompt; the next resume records it), as `turnloop sessions` says it.
   */
  interrupted?: true;
}

/** Copilot's permission request kinds, as an app's handler sees them. */
export type PermissionKind = "shell" | "write" | "read" | "url" | "mcp" | "custom-tool";

/**
 * What `permission.requested.data.permissionRequest` holds on the wire: Copilot's fields for
 * its `kind`, plus turnloop's (`toolName`, `toolKind`, `arguments`, `paths`, `command`).
 */
export interface WirePermissionRequest {
  kind: PermissionKind;
  toolCallId: string;
  toolName: string;
  /** Short title, e.g. `Run git status`. */
  intention: string;
  /** turnloop's ACP tool kind (`execute`, `edit`, `read` …). */
  toolKind: string;
  arguments: JsonObject;
  /** Absolute paths the call touches. */
  paths: string[];
  command?: string;
  /**
   * turnloop's: where a command would run, set for commands: the sandbox policy, whether the
   * network is on, and, for a question to run outside the sandbox a command it stopped, why
   * (`CommandConfinement` in `src/permissions/permission-mode.ts`). ACP clients get the same as
   * `_meta["turnloop/sandbox"]`.
   */
  sandbox?: {
    policy: "read-only" | "workspace-write" | "danger-full-access";
    network: boolean;
    outsideReason?: string;
  };
  /**
   * `shell`, Copilot's field: the question is to run outside the sandbox a command the sandbox
   * stopped (`sandbox.outsideReason` says why). Sent only to an app that registered a handler
   * for such questions (`requestSandboxBypass: true` in `session.create`; turnloop's SDK:
   * `onSandboxBypassRequest`), never to its `onPermissionRequest`.
   */
  requestSandboxBypass?: boolean;
  /** `shell`, Copilot's field: why the sandbox stopped the command, with `requestSandboxBypass`. */
  requestSandboxBypassReason?: string;
  /** `shell`: the command's text. */
  fullCommandText?: string;
  /**
   * `shell`: the program each simple command finally runs, as turnloop's permission rules read
   * the command (wrappers such as `sudo`, `env`, `timeout` peeled, `VAR=x` prefixes dropped);
   * `readOnly` is always false (turnloop knows no program to change nothing).
   */
  commands?: Array<{ identifier: string; readOnly: boolean }>;
  /** `shell`: each simple command's program and its text with arguments, as `commands`. */
  commandSegments?: Array<{ identifier: string; fullCommandText: string }>;
  /** `shell`: arguments and redirection targets that may name files, as written. */
  possiblePaths?: string[];
  /** `shell`: arguments that are URLs. */
  possibleUrls?: Array<{ url: string }>;
  /** `shell`: output goes into a file (`>`, `>>`, `&>` … to anything but /dev/null). */
  hasWriteFileRedirection?: boolean;
  /**
   * `shell`, `write`: an `approve-for-session` answer records a rule for the session. False for a
   * command turnloop cannot fully read and for a question to run a command outside the sandbox.
   */
  canOfferSessionApproval?: boolean;
  /** `shell`: why turnloop cannot fully read the command, when it cannot. */
  warning?: string;
  /** `write`: the file. */
  fileName?: string;
  /** `write`: a unified diff of the change (empty when turnloop cannot show it). */
  diff?: string;
  /** `write`: for `create`, the whole text it would write. */
  newFileContents?: string;
  /** `read` */
  path?: string;
  /** `url` */
  url?: string;
  /** `custom-tool` */
  toolDescription?: string;
  /** `custom-tool`, `mcp` */
  args?: JsonObject;
  /** `mcp`: the server's name (`toolName` is then the tool's name on that server). */
  serverName?: string;
  /** `mcp` */
  toolTitle?: string;
  readOnly?: boolean;
}

/**
 * The kinds of a {@link PermissionDecision} the runtime takes (the Copilot SDK's
 * `PermissionDecision` in its `rpc.ts`, with the legacy result spellings it also accepts; the
 * server's mapping: src/server/permissions.ts `replyFor`). `no-result` is the SDK's own: its
 * handler returns it to leave the question to another client, and nothing is sent.
 */
export type PermissionDecisionKind =
  | "approve-once"
  | "approve-for-session"
  | "approve-for-location"
  | "approve-permanently"
  | "reject"
  | "user-not-available"
  | "no-result"
  | "approved"
  | "approved-for-session"
  | "approved-for-location"
  | `denied-${string}`;

/**
 * An app's answer (`session.permissions.handlePendingPermissionRequest {requestId, result}`).
 * `approve-once` allows this call; `approve-for-session` (and `-for-location`, `-permanently`)
 * also record a session rule; `reject` denies (with `feedback` for the model);
 * `user-not-available` denies. Legacy spellings `approved` / `denied-*` are accepted. A kind
 * outside {@link PermissionDecisionKind} does not compile (trial 41: `approve_once` did, and
 * denied every call at run time).
 */
export interface PermissionDecision {
  kind: PermissionDecisionKind;
  feedback?: string;
}

/**
 * Copilot's `ToolResultObject.resultType` (the Copilot SDK's `ToolResultType`): how a tool call ended. It
 * picks the post-tool hook: `postToolUse` for `success`, `postToolUseFailure` for `failure`,
 * neither for `rejected`, `denied` or `timeout`.
 */
export type ToolResultType = "success" | "failure" | "rejected" | "denied" | "timeout";

/**
 * A custom tool's result (`handlePendingToolCall.result`): text, or Copilot's result object, whose
 * `resultType` is a {@link ToolResultType} (default `success`; any other value is a `failure`).
 */
export type ExternalToolResult =
  | string
  | { textResultForLlm: string; resultType?: string; error?: string };
