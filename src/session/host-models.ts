import { contextWindowOf } from "../llm/context-window.js";
import { catalogueModelHint } from "../llm/model-catalogue.js";
import {
  COMMAND_LINE_SETTINGS,
  commandLineSettings,
  createProvider,
  hasProviderPrefix,
  type ModelConfiguration,
  type ModelFailure,
  type ModelSettingNames,
  type ProviderTuning,
  resolveModel,
} from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import { profileNameOf, type RunConfig, resolvedModel } from "./run-config.js";

/**
 * The models of a session host (host.ts, whose base class this is): ids resolved to
 * configurations, the choices offered, the model a resumed session runs with, one provider per
 * configuration, context windows; and the provider tuning read from the environment.
 */

/** A model id resolved to a configuration, or why it cannot be (a message a person can act on). */
export type ModelResolution =
  | { ok: true; configuration: ModelConfiguration }
  | (ModelFailure & {
      /** The config profile a stored session's model names that no config file defines now
       * ({@link ModelHost.removedProfileProblem}): the request to reopen it is what is wrong. */
      removedProfile?: string;
    });

/** What a face tells its host about its models' settings (host.ts `SessionHostSettings`). */
export interface ModelHostSettings {
  /**
   * How the face names the settings its errors ask for; default the command line's, with the
   * user's config file in `home` (models.ts `commandLineSettings`) when given.
   */
  settingNames?: ModelSettingNames;
  /** The TURNLOOP_HOME folder, whose `config.json` the command line's names name. */
  home?: string;
}

export class ModelHost {
  readonly env: NodeJS.ProcessEnv;
  /** How this host's face names the settings a model's error asks for. */
  readonly settingNames: ModelSettingNames;
  /** The settings every session of this host runs with, and where each came from. */
  readonly config: RunConfig;
  private readonly tuning: ProviderTuning;
  /** One provider per model configuration (id, endpoint, key), shared by every session. */
  private readonly providers = new Map<string, Provider>();

  constructor(config: RunConfig, env: NodeJS.ProcessEnv, settings: ModelHostSettings = {}) {
    this.config = config;
    this.env = env;
    this.settingNames =
      settings.settingNames ??
      (settings.home === undefined ? COMMAND_LINE_SETTINGS : commandLineSettings(settings.home));
    this.tuning = providerTuning(env);
  }

  /**
   * Resolves `<provider>:<model>` or `<profile>:<model>` (default: the run config's model, as
   * written) with the run config's endpoints and the environment's keys. A config profile's model
   * (any model name after the profile's) keeps its id, runs on the profile's type at the profile's
   * endpoint ({@link RunConfig.profileBaseUrls}) with the key its `apiKeyEnv` names; a model of no
   * profile gets {@link RunConfig.otherModelsBaseUrl} and its provider's usual key, so neither
   * key reaches the other's server. A bare name (no colon) is read by {@link withProvider}'s one
   * rule, `current` being the model in use (interactive `/model`, ACP's model option, a resumed
   * session). Never throws.
   */
  resolveModel(
    written: string | undefined = this.config.model?.value,
    current?: string,
  ): ModelResolution {
    const modelId = written === undefined ? undefined : this.withProvider(written, current);
    const endpoints = this.config.endpoints;
    const name = modelId === undefined ? undefined : profileNameOf(modelId, this.config.providers);
    const profile = name === undefined ? undefined : this.config.providers[name]?.value;
    if (modelId === undefined || name === undefined || profile === undefined) {
      const baseUrl = this.config.otherModelsBaseUrl?.value;
      const source = written === this.config.model?.value ? this.config.model?.source : undefined;
      const input = {
        endpoints,
        ...(baseUrl === undefined ? {} : { baseUrl }),
        ...(source === undefined ? {} : { modelSource: source }),
      };
      const resolution = resolveModel(
        modelId === undefined ? input : { ...input, model: modelId },
        this.env,
        this.settingNames,
      );
      return resolution.ok || modelId === undefined
        ? resolution
        : withProfilesNamed(
            withCatalogueHint(resolution, modelId),
            Object.keys(this.config.providers),
          );
    }
    const baseUrl = this.config.profileBaseUrls[name]?.value;
    const problem = profileProblem(modelId, name, this.config, this.env, this.settingNames);
    if (problem !== undefined) {
      return problem;
    }
    const { type, apiKeyEnv } = profile;
    return resolveModel(
      {
        model: modelId,
        endpoints,
        profile: { type, ...(apiKeyEnv === undefined ? {} : { apiKeyVariable: apiKeyEnv }) },
        ...(baseUrl === undefined ? {} : { baseUrl }),
      },
      this.env,
      this.settingNames,
    );
  }

  /**
   * `modelId`'s id on its provider type: `openai-compatible:m` for `lab:m` when `lab` is a config
   * profile of type `openai-compatible`; any other id unchanged. The model catalogue (prices,
   * context windows) knows a model by it.
   */
  typeIdOf(modelId: string): string {
    return resolvedModel(modelId, this.config.providers);
  }

  /** Whether `modelId` starts with a provider's prefix (`anthropic:`) or a config profile's. */
  private hasModelPrefix(modelId: string): boolean {
    return hasProviderPrefix(this.typeIdOf(modelId));
  }

  /** The configured model id as written (`--model`, else `TURNLOOP_MODEL` or a config file's;
   * a profile's keeps its name) and those in `TURNLOOP_MODELS`. */
  configuredModels(): string[] {
    const listed = this.config.listedModels.map((id) => id.value);
    const ids = [this.config.model?.value, ...listed];
    return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ""))];
  }

  /**
   * The one rule for a bare model name (no colon: `other-model`), below every face (`--model`,
   * interactive `/model`, ACP's model option, the SDK's `model`): the configured or listed
   * (`TURNLOOP_MODELS`) id with that model name; else that name on the provider of `current`, the
   * model in use; else on the provider of the configured model (or of `TURNLOOP_MODEL` when the
   * configured one, `--model`'s, is the bare name itself). Claude Code, opencode and Copilot CLI take
   * a bare name of the provider in use the same way. `modelId` with a provider's or profile's
   * prefix, or a colon naming neither (`nosuch:x`, refused by resolveModel), is returned as it is.
   */
  private withProvider(modelId: string, current: string | undefined): string {
    if (this.hasModelPrefix(modelId) || modelId.includes(":")) {
      return modelId;
    }
    const configured = this.configuredModels().filter((id) => this.hasModelPrefix(id));
    const named = configured.find((id) => id.slice(id.indexOf(":") + 1) === modelId);
    const inUse = current !== undefined && this.hasModelPrefix(current) ? [current] : [];
    const fallback = [this.env.TURNLOOP_MODEL ?? ""].filter((id) => this.hasModelPrefix(id));
    const provider = [...inUse, ...configured, ...fallback][0];
    if (named !== undefined || provider === undefined) {
      return named ?? modelId;
    }
    return `${provider.slice(0, provider.indexOf(":"))}:${modelId}`;
  }

  /**
   * The model of a reopened session: `--model` when given, else `recorded`, the one it ran with
   * (`TURNLOOP_MODEL` and the config files' `model` choose new sessions' model, not a resumed
   * one's: README, "The interactive session"); when that does not resolve (e.g. its key is not
   * set here), the configured model. The recorded model's problem is reported when neither
   * resolves, and when it names a config profile that no config file here defines any more (its
   * prefix names no provider): another endpoint and key are not silently put in its place.
   * `unavailable` says why the recorded model is not used when that is the reason.
   */
  modelForSession(recorded: string): ModelResolution & { unavailable?: string } {
    const given = this.config.model?.source === "--model" ? this.config.model.value : undefined;
    const own = this.resolveModel(given ?? recorded, recorded);
    if (own.ok) {
      return own;
    }
    const removed = given === undefined ? this.removedProfileProblem(recorded) : undefined;
    if (removed !== undefined) {
      return removed;
    }
    const configured = this.resolveModel();
    if (!configured.ok) {
      return own;
    }
    return given === undefined
      ? { ...configured, unavailable: unavailableReason(own) }
      : configured;
  }

  /**
   * Why `recorded`, the model a stored session ran with, cannot be resumed when its prefix names
   * neither a provider nor a config profile: it was a profile's (`lab:m`) that no config file
   * here defines now. Said naming the profile, so that a face refuses the resume (README's exit
   * codes: 64, nothing written) rather than putting another endpoint and key in its place.
   * `undefined` for any other model.
   */
  removedProfileProblem(recorded: string): Extract<ModelResolution, { ok: false }> | undefined {
    if (!recorded.includes(":") || this.hasModelPrefix(recorded)) {
      return undefined;
    }
    const name = recorded.slice(0, recorded.indexOf(":"));
    return {
      ok: false,
      removedProfile: name,
      message: `turnloop: the session's model ${recorded} names the config profile "${name}", which no config file here defines (providers.${name}): add it back to resume on its endpoint with its key, or resume with another model (${this.settingNames.resumeModel}).`,
    };
  }

  /**
   * Models to offer as choices: `current`, the configured model, the session's recorded one, and
   * those listed in `TURNLOOP_MODELS` (comma-separated), each once and only if it resolves.
   */
  modelChoices(current: string, recorded: string): string[] {
    const [configured, ...listed] = this.configuredModels();
    const candidates = [configured, recorded, ...listed];
    const choices = [current];
    for (const id of candidates) {
      if (id !== undefined && id !== "" && !choices.includes(id) && this.resolveModel(id).ok) {
        choices.push(id);
      }
    }
    return choices;
  }

  /**
   * The provider for `configuration`, created once per id, endpoint and key and then reused by
   * every session and prompt of this host (it keeps what it learned, e.g. an endpoint without
   * `stream_options`).
   */
  provider(configuration: ModelConfiguration): Provider {
    const { id, baseUrl, apiKey, headers } = configuration;
    const key = JSON.stringify([id, baseUrl, apiKey, headers]);
    let provider = this.providers.get(key);
    if (provider === undefined) {
      provider = createProvider(configuration, this.tuning);
      this.providers.set(key, provider);
    }
    return provider;
  }

  /**
   * The context window of `modelId` in tokens: `--context-window`, `TURNLOOP_CONTEXT_WINDOW`,
   * the config files' `contextWindows` entry of `modelId`, then of its provider type's id
   * ({@link typeIdOf}: `lab:m`, then `openai-compatible:m`), the catalogue (llm/context-window.ts).
   * `config`: the run config whose flags and files apply (a session's folder's; default the host's).
   */
  contextWindowOf(modelId: string, config: RunConfig = this.config): number {
    const contextWindows = Object.fromEntries(
      Object.entries(config.contextWindows).map(([model, size]) => [model, size.value]),
    );
    const contextWindow = config.contextWindow?.value;
    return contextWindowOf(
      modelId,
      { contextWindows, ...(contextWindow === undefined ? {} : { contextWindow }) },
      this.env,
      this.typeIdOf(modelId),
    );
  }
}

/**
 * What the config profile `name` leaves missing for `modelId`, one of its models (`<name>:<model>`),
 * said in the profile's terms: no endpoint (an `openai-compatible` profile without `baseUrl`:
 * `--base-url` and the like never serve a profile, run-config.ts), or no key in the variable its
 * `apiKeyEnv` names (unset or empty, `TURNLOOP_API_KEY` unset too). Without this the endpoint's
 * message named only the flags, and the key's absence was silent until the provider answered 401
 * (or another variable's key was sent there). `undefined` when nothing is missing.
 */
function profileProblem(
  modelId: string,
  name: string,
  config: RunConfig,
  env: NodeJS.ProcessEnv,
  names: ModelSettingNames,
): Extract<ModelResolution, { ok: false }> | undefined {
  const profile = config.providers[name];
  if (profile === undefined) {
    return undefined;
  }
  const where = `in ${profile.source}`;
  if (profile.value.type === "openai-compatible" && config.profileBaseUrls[name] === undefined) {
    return {
      ok: false,
      message: `turnloop: ${modelId} needs an endpoint: set providers.${name}.baseUrl ${where}, e.g. http://127.0.0.1:8000/v1 (${names.baseUrl} serves only models of no config profile, never a profile's key).`,
    };
  }
  const variable = profile.value.apiKeyEnv;
  if (
    variable === undefined ||
    (env[variable] ?? "") !== "" ||
    (env.TURNLOOP_API_KEY ?? "") !== ""
  ) {
    return undefined;
  }
  return {
    ok: false,
    message: `turnloop: ${modelId} needs an API key: ${variable} is not set (providers.${name}.apiKeyEnv ${where} names it); set it, or TURNLOOP_API_KEY.`,
    missingKey: { variable, modelId },
  };
}

/**
 * `resolution`'s "unknown model" message naming the config profiles too (`names`), which a model
 * id may start with as well; any other resolution as it is.
 */
function withProfilesNamed(resolution: ModelResolution, names: readonly string[]): ModelResolution {
  if (resolution.ok || names.length === 0 || !resolution.message.includes("unknown model")) {
    return resolution;
  }
  const profiles = `, or <profile>:<model> with a profile of the config files' providers (${names.join(", ")}).`;
  return { ...resolution, message: resolution.message.replace(/\.$/, profiles) };
}

/**
 * `resolution`'s message, for a bare model name that nothing gave a provider, with the ids the
 * model catalogue lists `modelId` under (model-catalogue.ts `catalogueModelHint`:
 * `(did you mean "openai:gpt-4o" or "openai-chat:gpt-4o"?)`); any other resolution as it is.
 */
function withCatalogueHint(resolution: ModelResolution, modelId: string): ModelResolution {
  if (resolution.ok || resolution.noProvider !== true) {
    return resolution;
  }
  const hint = catalogueModelHint(modelId);
  return { ...resolution, message: resolution.message.replace(/ names no provider/, `$&${hint}`) };
}

/** Why a model that did not resolve cannot be used here, after its id ("whose key … is not set here"). */
function unavailableReason(resolution: ModelResolution & { ok: false }): string {
  return resolution.missingKey === undefined
    ? `which cannot be used here: ${resolution.message.replace(/^turnloop: /, "")}`
    : `whose key ${resolution.missingKey.variable} is not set here`;
}

/**
 * Tuning knobs from the environment, for tests and slow links: `TURNLOOP_STREAM_IDLE_TIMEOUT_MS`,
 * `TURNLOOP_RETRY_BASE_DELAY_MS`, `TURNLOOP_MAX_RETRIES`.
 */
export function providerTuning(env: NodeJS.ProcessEnv): ProviderTuning {
  const number = (name: string) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const idleTimeoutMs = number("TURNLOOP_STREAM_IDLE_TIMEOUT_MS");
  const initialDelayMs = number("TURNLOOP_RETRY_BASE_DELAY_MS");
  const maxRetries = number("TURNLOOP_MAX_RETRIES");
  return {
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    retry: {
      ...(initialDelayMs === undefined ? {} : { initialDelayMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    },
  };
}
