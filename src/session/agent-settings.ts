import { createPermissionGate } from "../agent/permission-gate.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { createProvider, type ModelConfiguration, type ProviderTuning } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { AskPermission } from "../permissions/permission-decision.js";
import type { PermissionRule } from "../permissions/permission-rules.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import { loadInstructions } from "./instructions.js";
import type { Session, SessionAgentSettings } from "./session.js";

/** How a face wants a session's prompts run. Every face (CLI, ACP, SDK server) builds one. */
export interface SessionOptions {
  model: ModelConfiguration;
  /** Reuse a provider (keeps what it learned, e.g. a server without `stream_options`). */
  provider?: Provider;
  tuning?: ProviderTuning;
  autopilot: boolean;
  /** Model requests per prompt. */
  maxTurns: number;
  maxAutopilotContinues: number;
  allowAllTools: boolean;
  /** `--allow-tool` rules. */
  allow: readonly PermissionRule[];
  /** `--deny-tool` rules. */
  deny: readonly PermissionRule[];
  /** Folders besides the cwd that may be read without asking. */
  folders?: readonly string[];
  /** How the face asks its user; absent: calls that need asking are denied with `noAskReason`. */
  ask?: AskPermission;
  noAskReason?: string;
  /** Tools besides the built-in ones (e.g. an SDK app's). */
  extraTools?: readonly AnyTool[];
  /** Output token cap per request (tokens). */
  maxOutputTokens?: number;
  /** The client's file and terminal access (ACP), used by tools instead of the disk. */
  client?: ClientCapabilities;
  /** Read `AGENTS.md` and the like ({@link loadInstructions}) with the user's in `home`; absent: none. */
  instructions?: { home: string };
  /** Replaces our base system prompt: `--system-prompt-file`'s path and text. */
  systemPrompt?: { path: string; text: string };
  /** Appended to the system prompt (`--append-system-prompt`). */
  appendSystemPrompt?: string;
  /** The model's context window in tokens (`--context-window`); the known window when absent. */
  contextWindow?: number;
  /** Context windows (tokens) by model id, from the config files. */
  contextWindows?: Readonly<Record<string, number>>;
}

/**
 * The loop settings for `session` under `options`: provider, built-in tools, system prompt, and
 * the permission gate (flags, then the session's recorded "always" answers).
 */
export function agentSettingsFor(session: Session, options: SessionOptions): SessionAgentSettings {
  return {
    provider: options.provider ?? createProvider(options.model, options.tuning),
    tools: [...builtinTools(), ...(options.extraTools ?? [])],
    systemPrompt: systemPromptFor(session, options),
    maxTurns: options.maxTurns,
    autopilot: options.autopilot,
    maxAutopilotContinues: options.maxAutopilotContinues,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.client === undefined ? {} : { client: options.client }),
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    ...(options.contextWindows === undefined ? {} : { contextWindows: options.contextWindows }),
    authorize: createPermissionGate({
      cwd: session.cwd,
      policy: () => ({
        allowAllTools: options.allowAllTools,
        allow: [...options.allow, ...session.grants.allow],
        deny: [...options.deny, ...session.grants.deny],
        folders: options.folders ?? [],
      }),
      emit: (event) => void session.emit(event),
      ...(options.ask === undefined ? {} : { ask: options.ask }),
      ...(options.noAskReason === undefined ? {} : { noAskReason: options.noAskReason }),
    }),
  };
}

/**
 * The system prompt for `session`: ours (or `--system-prompt-file`'s), the instruction files that
 * apply in its cwd, then `--append-system-prompt`. Records `session.instructions_loaded` when the
 * files used differ from the last ones recorded in the session.
 */
function systemPromptFor(session: Session, options: SessionOptions): string {
  const loaded =
    options.instructions === undefined
      ? { files: [], text: "" }
      : loadInstructions(session.cwd, options.instructions.home);
  const files = [...loaded.files];
  if (options.systemPrompt !== undefined) {
    const bytes = Buffer.byteLength(options.systemPrompt.text);
    files.unshift({
      path: options.systemPrompt.path,
      scope: "system-prompt-file",
      bytes,
      truncated: false,
    });
  }
  const appendedBytes =
    options.appendSystemPrompt === undefined
      ? undefined
      : Buffer.byteLength(options.appendSystemPrompt);
  const record = { files, ...(appendedBytes === undefined ? {} : { appendedBytes }) };
  const previous = session.instructions ?? { files: [] };
  if (JSON.stringify(record) !== JSON.stringify(previous)) {
    session.emit({ type: "session.instructions_loaded", data: record });
  }
  return buildSystemPrompt({
    cwd: session.cwd,
    platform: process.platform,
    date: new Date(session.start.startTime),
    autopilot: options.autopilot,
    instructions: loaded.text,
    ...(options.systemPrompt === undefined ? {} : { base: options.systemPrompt.text }),
    ...(options.appendSystemPrompt === undefined ? {} : { append: options.appendSystemPrompt }),
  });
}
