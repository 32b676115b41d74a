import type { ConfigFile, LoadedConfig, ProviderProfile } from "./config.js";

/**
 * The settings a face runs with and where each came from: a flag (`--model`), a variable
 * (`TURNLOOP_MODEL`), a config file's path, or `default`. Precedence: flags > environment >
 * project config > user config > default.
 */

/** A value and its source. */
export interface Sourced<T> {
  value: T;
  source: string;
}

/** What the command line gave (absent = not given). */
export interface FlagSettings {
  model?: string;
  baseUrl?: string;
  maxTurns?: number;
  maxAutopilotContinues?: number;
  allowTools: readonly string[];
  denyTools: readonly string[];
}

export interface EffectiveSettings {
  /** The model id as written (maybe `<profile>:<model>`), and the id it resolves to. */
  model?: Sourced<string> & { resolved: string };
  baseUrl?: Sourced<string>;
  /** The variable holding the API key to use instead of the provider's usual one. */
  apiKeyVariable?: Sourced<string>;
  maxTurns: Sourced<number>;
  maxAutopilotContinues: Sourced<number>;
  allow: Array<Sourced<string>>;
  deny: Array<Sourced<string>>;
  providers: Record<string, Sourced<ProviderProfile>>;
  /** Context window sizes (tokens) by model id. */
  contextWindows: Record<string, Sourced<number>>;
}

export const DEFAULT_MAX_TURNS = 100;
export const DEFAULT_MAX_AUTOPILOT_CONTINUES = 5;

/** Combines flags, environment and config files into the settings in force. */
export function effectiveSettings(
  flags: FlagSettings,
  env: NodeJS.ProcessEnv,
  config: LoadedConfig,
): EffectiveSettings {
  // Project after user, so a later file wins for single values and merges maps by name.
  const files = config.files;
  const last = <T>(pick: (settings: ConfigFile) => T | undefined): Sourced<T> | undefined => {
    let found: Sourced<T> | undefined;
    for (const file of files) {
      const value = pick(file.settings);
      if (value !== undefined) {
        found = { value, source: file.path };
      }
    }
    return found;
  };
  const merged = <T>(pick: (settings: ConfigFile) => Record<string, T> | undefined) => {
    const result: Record<string, Sourced<T>> = {};
    for (const file of files) {
      for (const [name, value] of Object.entries(pick(file.settings) ?? {})) {
        result[name] = { value, source: file.path };
      }
    }
    return result;
  };
  const listed = (
    pick: (settings: ConfigFile) => string[] | undefined,
    given: readonly string[],
    flag: string,
  ) => [
    ...files.flatMap((file) =>
      (pick(file.settings) ?? []).map((value) => ({ value, source: file.path })),
    ),
    ...given.map((value) => ({ value, source: flag })),
  ];
  const providers = merged((settings) => settings.providers);
  const model = firstOf(
    flagValue(flags.model, "--model"),
    envValue(env, "TURNLOOP_MODEL"),
    last((settings) => settings.model),
  );
  const profile = model === undefined ? undefined : profileOf(model.value, providers);
  const baseUrl = firstOf(
    flagValue(flags.baseUrl, "--base-url"),
    envValue(env, "TURNLOOP_BASE_URL"),
    profile?.value.baseUrl === undefined
      ? undefined
      : { value: profile.value.baseUrl, source: profile.source },
    last((settings) => settings.baseUrl),
  );
  const apiKeyEnv = profile?.value.apiKeyEnv;
  return {
    ...(model === undefined
      ? {}
      : { model: { ...model, resolved: resolvedModel(model.value, providers) } }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKeyEnv === undefined
      ? {}
      : { apiKeyVariable: { value: apiKeyEnv, source: profile?.source ?? "" } }),
    maxTurns: firstOf(
      flagValue(flags.maxTurns, "--max-turns"),
      last((settings) => settings.maxTurns),
    ) ?? { value: DEFAULT_MAX_TURNS, source: "default" },
    maxAutopilotContinues: firstOf(
      flagValue(flags.maxAutopilotContinues, "--max-autopilot-continues"),
      last((settings) => settings.autopilot?.maxContinues),
    ) ?? { value: DEFAULT_MAX_AUTOPILOT_CONTINUES, source: "default" },
    allow: listed((settings) => settings.permissions?.allow, flags.allowTools, "--allow-tool"),
    deny: listed((settings) => settings.permissions?.deny, flags.denyTools, "--deny-tool"),
    providers,
    contextWindows: merged((settings) => settings.contextWindows),
  };
}

/**
 * The environment a face should read models from: `env` with the profile's key variable copied
 * to `TURNLOOP_API_KEY` (unless that is set).
 */
export function environmentFor(
  settings: EffectiveSettings,
  env: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const variable = settings.apiKeyVariable?.value;
  if (variable === undefined || env.TURNLOOP_API_KEY !== undefined || env[variable] === undefined) {
    return env;
  }
  return { ...env, TURNLOOP_API_KEY: env[variable] };
}

function profileOf(
  model: string,
  providers: Record<string, Sourced<ProviderProfile>>,
): Sourced<ProviderProfile> | undefined {
  const prefix = model.slice(0, Math.max(0, model.indexOf(":")));
  return Object.hasOwn(providers, prefix) ? providers[prefix] : undefined;
}

/** `<profile>:<model>` → `<type>:<model>`; other ids unchanged. */
function resolvedModel(model: string, providers: Record<string, Sourced<ProviderProfile>>): string {
  const profile = profileOf(model, providers);
  return profile === undefined ? model : `${profile.value.type}${model.slice(model.indexOf(":"))}`;
}

function firstOf<T>(...candidates: Array<Sourced<T> | undefined>): Sourced<T> | undefined {
  return candidates.find((candidate) => candidate !== undefined);
}

function flagValue<T>(value: T | undefined, flag: string): Sourced<T> | undefined {
  return value === undefined ? undefined : { value, source: flag };
}

function envValue(env: NodeJS.ProcessEnv, name: string): Sourced<string> | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : { value, source: name };
}
