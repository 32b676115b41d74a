/**
 * The loop's types: what `runPrompt` (loop.ts, which re-exports them) is given (the session's
 * settings, the conversation it reads and writes, the prompt) and what it answers. Types only:
 * the bundle holds no code for them, so no run loads this module (test/cli/modules-loaded.test.ts
 * counts the modules loaded).
 */

import type {
  ErrorType,
  EventInput,
  JsonValue,
  PromptBlock,
  PromptImage,
  StopReason,
  UserMessageSource,
} from "../events/events.js";
import type { SecretValue } from "../events/secrets.js";
import type { ModelSettingNames } from "../llm/models.js";
import type { Provider, ToolResultMessage } from "../llm/provider.js";
import type { CommandSetup } from "../tools/command-runner.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import type { CompactionOptions } from "./compaction.js";
import type { ModelFailureSettings } from "./decide-next.js";
import type { History } from "./history.js";
import type { Authorize, CallNotRunCallback, UnavailableToolLookup } from "./tool-calls.js";

/** How a session's loop behaves. Fixed for the length of a prompt. */
export interface AgentSettings extends CompactionOptions, ModelFailureSettings {
  provider: Provider;
  /** Built-in and custom tools; `task_complete` is added in autopilot. */
  tools: readonly AnyTool[];
  /**
   * Tools that can change between model requests (MCP servers that connect late or change their
   * list), read before each request and offered after `tools`.
   */
  changingTools?: () => readonly AnyTool[];
  /**
   * The face's choice among all the tools of a request (`tools`, `task_complete` in autopilot and
   * `changingTools`, in that order), applied before each model request so that no tool bypasses
   * it (the SDK face's `availableTools`/`excludedTools`); all of them are offered when absent.
   */
  offerTools?: (tools: readonly AnyTool[]) => readonly AnyTool[];
  systemPrompt: string;
  cwd: string;
  sessionDirectory: string;
  /** Model requests allowed per prompt (`--max-turns`, default 100). */
  maxTurns: number;
  autopilot: boolean;
  /** Nudges allowed per prompt in autopilot (`--max-autopilot-continues`, default 5). */
  maxAutopilotContinues: number;
  /** Output token cap per request (tokens); provider default when absent. */
  maxOutputTokens?: number;
  authorize: Authorize;
  /**
   * Called for a call answered with an error without running (a tool that does not exist, bad
   * arguments), before that result is recorded (the SDK server: the app's `preToolUse` hook, which
   * the Copilot CLI runs before the tool's existence is checked, then its `postToolUseFailure`
   * hook, whose guidance follows the result).
   */
  onCallNotRun?: CallNotRunCallback;
  /** Asked about a call of a tool not offered, before it is answered "does not exist" (MCP). */
  unavailableTool?: UnavailableToolLookup;
  /** The face's client capabilities (ACP fs), passed on to tools. */
  client?: ClientCapabilities;
  /** How commands run (runner and environment, from the session host), passed on to tools. */
  commands: CommandSetup;
  /** The session host's secrets, redacted in files tools save. */
  secrets: readonly SecretValue[];
  /**
   * End the prompt (`end_turn`, the model is not asked again) once a tool call of a reply was
   * rejected (error code `rejected`: the user said no, or an app's tool reported `rejected`), as
   * the Copilot CLI does; the SDK server sets it. Default: the rejection goes back to the model.
   */
  endAfterRejection?: boolean;
  /**
   * A face's own wording of a tool result for the model (the SDK server: the Copilot CLI's
   * texts), applied to each result as a model request is made; the log keeps turnloop's text (the
   * command's output, the diff), which every other face and reader shows. Default: that text.
   */
  rewordResult?: (result: ToolResultMessage) => string;
  /**
   * How the face names its settings (llm/models.ts), for advice in its own words: a prompt too
   * large for the window names the model and context-window settings. Default: the command line's.
   */
  settingNames?: ModelSettingNames;
}

/** What the loop reads and writes: the folded history and the session's event sink. */
export interface Conversation {
  history: History;
  /** Records an event: persisted (unless ephemeral), folded into `history`, sent to subscribers. */
  emit(event: EventInput): void;
  /**
   * Makes the events emitted so far durable; awaited after the prompt's `user.message` (before the
   * first request) and before a tool that can change anything runs (tool-calls.ts). Rejects: the
   * request is not sent, the tool does not run.
   */
  checkpoint?(): Promise<void>;
  /**
   * Resolves once the store holds the events emitted so far, durable or not (the file store
   * syncs nothing for it: session-store.ts `CommitOptions.recorded`); awaited before a model
   * request is sent, in place of {@link checkpoint}. Rejects: the request is not sent.
   */
  recorded?(): Promise<void>;
  /**
   * Hands an event to the subscribers only: not stored, not folded (a prompt refused before it
   * was stored: its `session.error`, so that no log shows a prompt that never ran).
   */
  report?(event: EventInput): void;
}

/** Why a prompt was refused before it was stored or sent: its estimate beyond a known window. */
export interface PromptTooLarge {
  /** The request the prompt starts (system prompt, tools, the prompt), estimated (tokens). */
  estimatedTokens: number;
  /** The model's context window, set by the user or in the catalogue (tokens). */
  contextWindow: number;
}

/**
 * How a prompt ended: an ACP stop reason, or a failure (ACP answers those with an error).
 * `autopilotStopped` is set when autopilot reached its continuation cap before the model called
 * `task_complete` (the task was not marked complete; `-p` exits 2); `repetition`, what the model
 * repeated, when the repetition guard stopped it (`max_turn_requests`, yet no `--max-turns`);
 * `emptyAnswer` when the model finished without text (a `session.warning` says so; `-p` exits 2).
 */
export type PromptOutcome =
  | ({ stopReason: StopReason; autopilotStopped?: "cap_reached" } & StopDetails)
  | {
      error: { errorType: ErrorType; message: string; statusCode?: number };
      /** Set when the prompt was refused before anything of it was stored or sent. */
      promptTooLarge?: PromptTooLarge;
    };

/** What a stop adds to its reason: see {@link PromptOutcome}. */
type StopDetails = { repetition?: string; emptyAnswer?: true };

/**
 * One prompt as `user.message` records it: the text the model reads, who sent it, its images,
 * and what a face keeps beside them (the Copilot SDK's attachments as sent, its agent mode).
 */
export interface UserPrompt {
  content: string;
  source?: UserMessageSource;
  images?: PromptImage[];
  attachments?: JsonValue[];
  /** The prompt as the user gave it, when `content` is more (`user.message`'s `contentBlocks`). */
  contentBlocks?: PromptBlock[];
  agentMode?: string;
  /** The id of a prompt sent from another worker (issue 22), recorded on its `user.message`. */
  promptId?: string;
  /**
   * What the face gave the model only a note of, as the user is told it (`an audio clip
   * (audio/wav)`): one `session.warning` after the prompt (image-notices.ts `notSentNotice`). Not
   * recorded on `user.message`.
   */
  notSent?: string[];
}
