import { resolve } from "node:path";
import { ENDPOINT_VARIABLES } from "../llm/api-keys.js";
import type { PermissionMode } from "../permissions/permission-mode.js";
import type { ConfigFile, LoadedConfig, ProviderProfile } from "./config.js";
import { withRuleAnchors } from "./config-paths.js";
import type { FaceOptions } from "./face-options.js";

/**
 * The run config: every setting a session runs with, resolved once from the flags, the
 * environment and the config files, with where each value came from: a flag (`--model`), a
 * variable (`TURNLOOP_MODEL`), a config file's path, or `default`. Precedence: flags >
 * environment > project config > user config > default (issue 21; README, "Config files").
 * `turnloop config` prints it; the session host derives each prompt's agent settings from it.
 */

import type { RunConfig, Sourced, SourcedRule } from "./run-config-shape.js";

export type { RunConfig, Sourced, SourcedRule };

export const DEFAULT_MAX_TURNS = 100;
export const DEFAULT_MAX_AUTOPILOT_CONTINUES = 5;

const allowRules = (file: ConfigFile) => file.permissions?.allow;
const denyRules = (file: ConfigFile) => file.permissions?.deny;

/** No config files: the flags and the environment alone. */
export const NO_CONFIG_FILES: LoadedConfig = { files: [], warnings: [] };

/**
 * Resolves `flags` (a face's command line; `flagsGiven` tells a given `--max-turns` from its
 * default), `env` and the config files into one frozen {@link RunConfig} for sessions in
 * `folder` (absolute; default the cwd of `flags`), which anchors the rules. Never throws.
 */
export function resolveRunConfig(
  flags: FaceOptions,
  env: NodeJS.ProcessEnv,
  config: LoadedConfig = NO_CONFIG_FILES,
  folder: string = resolve(flags.cwd),
): RunConfig {
  const layers = new ConfigLayers(config);
  return deepFreeze({
    cwd: { value: resolve(flags.cwd), source: given(flags, "cwd") ? "--cwd" : "default" },
    ...modelSettings(flags, env, layers),
    maxTurns: firstOf(
      given(flags, "max-turns") ? flagValue(flags.maxTurns, "--max-turns") : undefined,
      layers.last((settings) => settings.maxTurns),
    ) ?? { value: DEFAULT_MAX_TURNS, source: "default" },
    maxAutopilotContinues: firstOf(
      given(flags, "max-autopilot-continues")
        ? flagValue(flags.maxAutopilotContinues, "--max-autopilot-continues")
        : undefined,
      layers.last((settings) => settings.autopilot?.maxContinues),
    ) ?? { value: DEFAULT_MAX_AUTOPILOT_CONTINUES, source: "default" },
    autopilot: switchValue(flags.autopilot, "--autopilot"),
    ...permissionSettings(flags, layers),
    allow: withRuleAnchors(layers.listed(allowRules, flags.allowTools, "--allow-tool"), folder),
    deny: withRuleAnchors(layers.listed(denyRules, flags.denyTools, "--deny-tool"), folder),
    folders: flags.addDirs.map((folder) => ({ value: folder, source: "--add-dir" })),
    ...optional(
      "contextWindow",
      firstOf(
        flagValue(flags.contextWindow, "--context-window"),
        envNumber(env, "TURNLOOP_CONTEXT_WINDOW", contextWindowVariable(env)),
      ),
    ),
    ...optional("tuning", tuningSettings(env)),
    contextWindows: layers.merged((settings) => settings.contextWindows),
    instructions:
      flags.noInstructions === true
        ? { value: false, source: "--no-instructions" }
        : { value: true, source: "default" },
    ...optional("systemPromptFile", flagValue(flags.systemPromptFile, "--system-prompt-file")),
    ...optional(
      "appendSystemPrompt",
      flagValue(flags.appendSystemPrompt, "--append-system-prompt"),
    ),
    mcpConfigs: flags.mcpConfigs.map((file) => ({ value: file, source: "--mcp-config" })),
    ...optional(
      "store",
      firstOf(
        flagValue(flags.store, "--store"),
        envValue(env, "TURNLOOP_DATABASE_URL"),
        layers.last((settings) => settings.store),
      ),
    ),
  });
}

/**
 * Whether commands of this run config may need the sandbox: a confining policy was chosen, or the
 * permission mode is `auto` (whose default policy confines). Only then is bubblewrap probed.
 */
export function sandboxWanted(
  config: Pick<RunConfig, "sandboxPolicy" | "permissionMode">,
): boolean {
  const policy = config.sandboxPolicy?.value;
  return (
    (policy !== undefined && policy !== "danger-full-access") ||
    config.permissionMode.value === "auto"
  );
}

/**
 * The permission mode, the sandbox (issue 23) and the variables commands keep, with
 * `allowAllTools` kept for older callers.
 */
function permissionSettings(
  flags: FaceOptions,
  layers: ConfigLayers,
): Pick<
  RunConfig,
  | "allowAllTools"
  | "permissionMode"
  | "sandboxPolicy"
  | "sandboxNetwork"
  | "sandboxUnixSockets"
  | "sandboxTmpfsSizeMiB"
  | "sandboxHidden"
  | "keptVariables"
> {
  const permissionMode = firstOf<PermissionMode>(
    flagValue(flags.permissionMode, "--permission-mode"),
    flags.allowAllTools ? { value: "full-access", source: "--allow-all-tools" } : undefined,
    layers.last((settings) => settings.permissions?.mode),
    flags.autopilot ? { value: "auto", source: "--autopilot" } : undefined,
  ) ?? { value: "ask", source: "default" };
  const allowAllTools: Sourced<boolean> =
    permissionMode.value === "full-access"
      ? { value: true, source: permissionMode.source }
      : { value: false, source: "default" };
  return {
    allowAllTools,
    permissionMode,
    ...optional(
      "sandboxPolicy",
      firstOf(
        flagValue(flags.sandbox, "--sandbox"),
        layers.last((settings) => settings.sandbox?.policy),
      ),
    ),
    sandboxNetwork: firstOf(
      flags.sandboxNetwork === true ? { value: true, source: "--sandbox-network" } : undefined,
      layers.last((settings) => settings.sandbox?.network),
    ) ?? { value: false, source: "default" },
    sandboxUnixSockets: layers.last((settings) => settings.sandbox?.allowUnixSockets) ?? {
      value: false,
      source: "default",
    },
    ...optional(
      "sandboxTmpfsSizeMiB",
      layers.last((settings) => settings.sandbox?.tmpfsSizeMiB),
    ),
    sandboxHidden: layers.listed((settings) => settings.sandbox?.hidden, [], "sandbox.hidden"),
    keptVariables: layers.listed(
      (settings) => settings.shellEnvironment?.keep,
      [],
      "shellEnvironment.keep",
    ),
  };
}

/**
 * Model, base URLs and key variable. A `<profile>:<model>` (any model of a config profile) is sent
 * to its profile's `baseUrl`, else its type's own endpoint (`OPENAI_BASE_URL` …), never to
 * `--base-url`, `TURNLOOP_BASE_URL` or a file's top-level `baseUrl`: those set the endpoint of the
 * models of no profile, and must not redirect a profile's key (as a provider's base URL is set
 * per provider in Codex's `model_providers` and opencode's `provider.<id>.options.baseURL`).
 */
function modelSettings(
  flags: FaceOptions,
  env: NodeJS.ProcessEnv,
  layers: ConfigLayers,
): Pick<
  RunConfig,
  | "model"
  | "baseUrl"
  | "otherModelsBaseUrl"
  | "profileBaseUrls"
  | "listedModels"
  | "endpoints"
  | "apiKeyVariable"
  | "providers"
> {
  const providers = layers.merged((settings) => settings.providers);
  const model = firstOf(
    flagValue(flags.model, "--model"),
    envValue(env, "TURNLOOP_MODEL"),
    layers.last((settings) => settings.model),
  );
  const profileName = model === undefined ? undefined : profileNameOf(model.value, providers);
  const profile = profileName === undefined ? undefined : providers[profileName];
  const given = firstOf(flagValue(flags.baseUrl, "--base-url"), envValue(env, "TURNLOOP_BASE_URL"));
  const fromFile = layers.last((settings) => settings.baseUrl);
  const profileBaseUrls = Object.fromEntries(
    Object.entries(providers).flatMap(([name, { value, source }]) =>
      value.baseUrl === undefined ? [] : [[name, { value: value.baseUrl, source }] as const],
    ),
  );
  const otherModelsBaseUrl = firstOf(given, fromFile);
  const baseUrl = profileName === undefined ? otherModelsBaseUrl : profileBaseUrls[profileName];
  const apiKeyEnv = profile?.value.apiKeyEnv;
  return {
    ...optional(
      "model",
      model === undefined
        ? undefined
        : { ...model, resolved: resolvedModel(model.value, providers) },
    ),
    ...optional("baseUrl", baseUrl),
    ...optional("otherModelsBaseUrl", otherModelsBaseUrl),
    profileBaseUrls,
    listedModels: listedModels(env),
    endpoints: Object.fromEntries(
      ENDPOINT_VARIABLES.flatMap((name) => {
        const value = envValue(env, name)?.value;
        return value === undefined ? [] : [[name, value] as const];
      }),
    ),
    ...optional(
      "apiKeyVariable",
      apiKeyEnv === undefined ? undefined : { value: apiKeyEnv, source: profile?.source ?? "" },
    ),
    providers,
  };
}

/** `TURNLOOP_MODELS`'s model ids (comma-separated, blanks dropped), each with its source. */
function listedModels(env: NodeJS.ProcessEnv): RunConfig["listedModels"] {
  return (envValue(env, "TURNLOOP_MODELS")?.value ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "")
    .map((id) => ({ value: id, source: "TURNLOOP_MODELS" }));
}

/** The config files, user first: a later file wins for single values and merges maps by name. */
class ConfigLayers {
  constructor(private readonly config: LoadedConfig) {}

  last<T>(pick: (settings: ConfigFile) => T | undefined): Sourced<T> | undefined {
    let found: Sourced<T> | undefined;
    for (const file of this.config.files) {
      const value = pick(file.settings);
      if (value !== undefined) {
        found = { value, source: file.path };
      }
    }
    return found;
  }

  merged<T>(pick: (settings: ConfigFile) => Record<string, T> | undefined) {
    const result: Record<string, Sourced<T>> = {};
    for (const file of this.config.files) {
      for (const [name, value] of Object.entries(pick(file.settings) ?? {})) {
        result[name] = { value, source: file.path };
      }
    }
    return result;
  }

  /** Every file's entries, then the flag's. */
  listed(
    pick: (settings: ConfigFile) => string[] | undefined,
    fromFlags: readonly string[],
    flag: string,
  ): Array<Sourced<string>> {
    return [
      ...this.config.files.flatMap((file) =>
        (pick(file.settings) ?? []).map((value) => ({ value, source: file.path })),
      ),
      ...fromFlags.map((value) => ({ value, source: flag })),
    ];
  }
}

/** The name of the config profile `model`'s prefix names (`lab` of `lab:m`), if any. */
export function profileNameOf(
  model: string,
  providers: Readonly<Record<string, Sourced<ProviderProfile>>>,
): string | undefined {
  const prefix = model.slice(0, Math.max(0, model.indexOf(":")));
  return Object.hasOwn(providers, prefix) ? prefix : undefined;
}

function profileOf(
  model: string,
  providers: Readonly<Record<string, Sourced<ProviderProfile>>>,
): Sourced<ProviderProfile> | undefined {
  const name = profileNameOf(model, providers);
  return name === undefined ? undefined : providers[name];
}

/** `<profile>:<model>` → `<type>:<model>`; other ids unchanged. */
export function resolvedModel(
  model: string,
  providers: Record<string, Sourced<ProviderProfile>>,
): string {
  const profile = profileOf(model, providers);
  return profile === undefined ? model : `${profile.value.type}${model.slice(model.indexOf(":"))}`;
}

/** Whether the long option `name` was on the command line (all count when not recorded). */
function given(flags: FaceOptions, name: string): boolean {
  return flags.flagsGiven === undefined || flags.flagsGiven.includes(name);
}

function firstOf<T>(...candidates: Array<Sourced<T> | undefined>): Sourced<T> | undefined {
  return candidates.find((candidate) => candidate !== undefined);
}

function flagValue<T>(value: T | undefined, flag: string): Sourced<T> | undefined {
  return value === undefined ? undefined : { value, source: flag };
}

function switchValue(on: boolean, flag: string): Sourced<boolean> {
  return on ? { value: true, source: flag } : { value: false, source: "default" };
}

/**
 * The numeric variables that tune a run, by the setting name `turnloop config` shows (README,
 * "Environment variables"; ranges checked before a run: cli/numeric-settings.ts NUMERIC_VARIABLES):
 * host-models.ts `providerTuning`, mcp-servers.ts `startupWaitFrom`, message-size.ts,
 * protocol/hooks.ts `hookTimeoutMs`.
 */
export const TUNING_VARIABLES = {
  maxRetries: "TURNLOOP_MAX_RETRIES",
  retryBaseDelayMs: "TURNLOOP_RETRY_BASE_DELAY_MS",
  streamIdleTimeoutMs: "TURNLOOP_STREAM_IDLE_TIMEOUT_MS",
  mcpStartupWaitMs: "TURNLOOP_MCP_STARTUP_WAIT_MS",
  maxMessageBytes: "TURNLOOP_MAX_MESSAGE_BYTES",
  hookTimeoutMs: "TURNLOOP_HOOK_TIMEOUT_MS",
} as const;

/** The {@link TUNING_VARIABLES} set to a number ≥ 0, or `undefined` when none is. */
function tuningSettings(env: NodeJS.ProcessEnv): Record<string, Sourced<number>> | undefined {
  const entries = Object.entries(TUNING_VARIABLES).flatMap(([setting, name]) => {
    const text = env[name]?.trim();
    const value = Number(text);
    return text === undefined || text === "" || !Number.isFinite(value) || value < 0
      ? []
      : [[setting, { value, source: name }] as const];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** `TURNLOOP_CONTEXT_WINDOW` when a positive integer (tokens): llm/context-window.ts's rule, not
 * imported since that module loads the model catalogue, which start-up leaves for the first request. */
function contextWindowVariable(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env.TURNLOOP_CONTEXT_WINDOW);
  return env.TURNLOOP_CONTEXT_WINDOW !== undefined && Number.isInteger(value) && value > 0
    ? value
    : undefined;
}

/** `value` (read from the variable `name` of `env`) with that variable as its source. */
function envNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  value: number | undefined,
): Sourced<number> | undefined {
  return value === undefined || env[name] === undefined ? undefined : { value, source: name };
}

/** Variable `name` with itself as source; set but empty is unset (README, "Environment variables"). */
function envValue(env: NodeJS.ProcessEnv, name: string): Sourced<string> | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : { value, source: name };
}

/** `{[key]: value}`, or no key when `value` is undefined (as `turnloop config --json` shows). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
  }
  return value;
}
