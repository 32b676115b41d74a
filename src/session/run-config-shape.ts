import type { EndpointVariable } from "../llm/api-keys.js";
import type { PermissionMode } from "../permissions/permission-mode.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import type { ProviderProfile } from "./config.js";
import type { FaceOptions } from "./face-options.js";

/**
 * The shape of the run config (run-config.ts resolves it): every setting a session runs with,
 * with where each value came from: a flag (`--model`), a variable (`TURNLOOP_MODEL`), a config
 * file's path, or `default`.
 */

/** A value and its source. */
export interface Sourced<T> {
  readonly value: T;
  readonly source: string;
}

/** A permission rule as written, its source, and the folder its relative paths are read against
 * when it has any (config-paths.ts `withRuleAnchors`). */
export interface SourcedRule extends Sourced<string> {
  readonly anchor?: string;
}

export interface RunConfig {
  /** The working directory of new sessions, absolute (`--cwd`, else the process's). */
  readonly cwd: Sourced<string>;
  /** The model id as written (maybe `<profile>:<model>`: the id new sessions get and record),
   * and its id on its provider type (`openai-compatible:m` for `lab:m` of type
   * `openai-compatible`; any other id unchanged). */
  readonly model?: Sourced<string> & { readonly resolved: string };
  /** The configured model's endpoint: its profile's in {@link profileBaseUrls} when it names one,
   * else {@link otherModelsBaseUrl}. */
  readonly baseUrl?: Sourced<string>;
  /** The endpoint of every model that names no config profile: `--base-url`,
   * `TURNLOOP_BASE_URL`, else a config file's `baseUrl` (absent: the provider's own). */
  readonly otherModelsBaseUrl?: Sourced<string>;
  /** The endpoint of each config profile's models, by profile name: the profile's `baseUrl`
   * (its source the file defining the profile); a profile without one is absent (its type's own
   * endpoint: `OPENAI_BASE_URL` …). `--base-url`, `TURNLOOP_BASE_URL` and a file's top-level
   * `baseUrl` never apply here ({@link otherModelsBaseUrl}). A profile's endpoint serves its
   * models only. */
  readonly profileBaseUrls: Readonly<Record<string, Sourced<string>>>;
  /** The model ids `TURNLOOP_MODELS` lists, comma-separated, each trimmed (blank ones dropped),
   * as written: the choices the faces offer besides the configured model (interactive `/model`,
   * ACP's model option, the server's `models.list`); checked as `TURNLOOP_MODEL` is. */
  readonly listedModels: ReadonlyArray<Sourced<string>>;
  /** The providers' own endpoint variables set (`OPENAI_BASE_URL` …), by name, as written. */
  readonly endpoints: Readonly<Partial<Record<EndpointVariable, string>>>;
  /** The variable holding the configured model's API key instead of its provider's usual one
   * (its profile's `apiKeyEnv`, which every model of that profile reads; no other model does). */
  readonly apiKeyVariable?: Sourced<string>;
  /** Model requests per prompt. */
  readonly maxTurns: Sourced<number>;
  /** Nudges allowed per prompt in autopilot. */
  readonly maxAutopilotContinues: Sourced<number>;
  /** New sessions start in autopilot (`--autopilot`). */
  readonly autopilot: Sourced<boolean>;
  /** Every tool runs without asking; deny rules still apply (`--allow-all-tools`). */
  readonly allowAllTools: Sourced<boolean>;
  /**
   * How much the gate decides alone: `--permission-mode`, else `full-access` with
   * `--allow-all-tools`, else config `permissions.mode`, else `auto` with `--autopilot`, else `ask`.
   */
  readonly permissionMode: Sourced<PermissionMode>;
  /** The sandbox policy of commands (`--sandbox`, config `sandbox.policy`); absent: sandbox-setup.ts's default. */
  readonly sandboxPolicy?: Sourced<SandboxPolicy>;
  /** Whether sandboxed commands may use the network (`--sandbox-network`, config `sandbox.network`). */
  readonly sandboxNetwork: Sourced<boolean>;
  /** Whether sandboxed commands may make Unix sockets (config `sandbox.allowUnixSockets`). */
  readonly sandboxUnixSockets: Sourced<boolean>;
  /** The size cap of the sandbox's /tmp and /dev/shm in MiB (config `sandbox.tmpfsSizeMiB`); absent: the default. */
  readonly sandboxTmpfsSizeMiB?: Sourced<number>;
  /** Places hidden from sandboxed commands besides the default list (config `sandbox.hidden`). */
  readonly sandboxHidden: ReadonlyArray<Sourced<string>>;
  /**
   * Variables commands keep although their names look secret (config `shellEnvironment.keep`;
   * command-environment.ts `droppedVariables`).
   */
  readonly keptVariables: ReadonlyArray<Sourced<string>>;
  /** Allow rules as written (`Tool` or `Tool(pattern)`): user file, project file, then flags. */
  readonly allow: ReadonlyArray<SourcedRule>;
  /** Deny rules as written, in the same order; deny wins over allow. */
  readonly deny: ReadonlyArray<SourcedRule>;
  /** Folders besides the cwd that may be read without asking (`--add-dir`). */
  readonly folders: ReadonlyArray<Sourced<string>>;
  readonly providers: Readonly<Record<string, Sourced<ProviderProfile>>>;
  /** The model's context window in tokens (`--context-window`, else `TURNLOOP_CONTEXT_WINDOW`). */
  readonly contextWindow?: Sourced<number>;
  /** The numeric tuning variables set ({@link TUNING_VARIABLES}), by setting name, each with the
   * variable as its source; absent when none is. */
  readonly tuning?: Readonly<Record<string, Sourced<number>>>;
  /** Context window sizes (tokens) by model id. */
  readonly contextWindows: Readonly<Record<string, Sourced<number>>>;
  /** Whether `AGENTS.md` and the like are read (`false` with `--no-instructions`). */
  readonly instructions: Sourced<boolean>;
  /** `--system-prompt-file`, as given (relative to the cwd). */
  readonly systemPromptFile?: Sourced<string>;
  /** `--append-system-prompt`. */
  readonly appendSystemPrompt?: Sourced<string>;
  /** `--mcp-config` files, in the order given. */
  readonly mcpConfigs: ReadonlyArray<Sourced<string>>;
  /**
   * The PostgreSQL database sessions are kept in (`--store`, `TURNLOOP_DATABASE_URL`, the config
   * files' `store`); unset: the file store. Holds the password: show it through
   * `redactDatabaseUrl` only.
   */
  readonly store?: Sourced<string>;
  /** The warning about the keys an untrusted project's file holds (project-holds.ts
   * `heldSettingsWarning`), set by face-config.ts: `-p` and the interactive face write it to
   * stderr, ACP and the SDK server also record it in each session (project-warnings.ts). */
  readonly heldWarning?: string;
  /** The warnings naming project files in folders between the cwd and the project's root, not
   * read (config-paths.ts `unreadProjectFiles`), set by face-config.ts; told as `heldWarning` is. */
  readonly unreadWarnings?: readonly string[];
  /** The face's flags (face-config.ts): a session in another folder is configured from them
   * with its folder's project file (folder-run.ts); absent: every session runs with this. */
  readonly flags?: FaceOptions;
  /** The start folder's project files were not read (face-config.ts, for a face resuming a
   * session by id): a session in that folder is configured as one in another (host.ts). */
  readonly projectSkipped?: boolean;
}
