import { contextWindowOf } from "../llm/context-window.js";
import {
  createProvider,
  hasProviderPrefix,
  type MissingKey,
  type ModelConfiguration,
  type ProviderTuning,
  resolveModel,
} from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import type { RunConfig } from "./run-config.js";

/**
 * The models of a session host (host.ts, whose base class this is): ids resolved to
 * configurations, the choices offered, the model a resumed session runs with, one provider per
 * configuration, context windows; and the provider tuning read from the environment.
 */

/** A model id resolved to a configuration, or why it cannot be (a message a person can act on). */
export type ModelResolution =
  | { ok: true; configuration: ModelConfiguration }
  | { ok: false; message: string; missingKey?: MissingKey; unusableKey?: true };

export class ModelHost {
  readonly env: NodeJS.ProcessEnv;
  /** The settings every session of this host runs with, and where each came from. */
  readonly config: RunConfig;
  private readonly tuning: ProviderTuning;
  /** One provider per model configuration (id, endpoint, key), shared by every session. */
  private readonly providers = new Map<string, Provider>();

  /** `env` with the configured model's profile key (`apiKeyEnv`) as `TURNLOOP_API_KEY`, unless
   * that is set: what the configured model's key is read from. */
  private readonly configuredModelEnv: NodeJS.ProcessEnv;

  constructor(config: RunConfig, env: NodeJS.ProcessEnv) {
    this.config = config;
    this.env = env;
    this.tuning = providerTuning(env);
    const variable = config.apiKeyVariable?.value;
    const key = variable === undefined ? undefined : env[variable];
    this.configuredModelEnv =
      key === undefined || env.TURNLOOP_API_KEY !== undefined
        ? env
        : { ...env, TURNLOOP_API_KEY: key };
  }

  /**
   * Resolves `<provider>:<model>` (default: the run config's model) with the run config's base URL
   * and endpoint variables, and the environment's keys. Never throws.
   */
  resolveModel(modelId: string | undefined = this.config.model?.resolved): ModelResolution {
    // A profile's endpoint and key serve the configured model only: another model (`/model`, a
    // resumed session's own) must not send its key to the profile's server, nor the profile's
    // key to its own.
    const configured = modelId === this.config.model?.resolved;
    const baseUrl = (configured ? this.config.baseUrl : this.config.otherModelsBaseUrl)?.value;
    const resolution = resolveModel(
      {
        ...(modelId === undefined ? {} : { model: modelId }),
        ...(baseUrl === undefined ? {} : { baseUrl }),
        endpoints: this.config.endpoints,
      },
      configured ? this.configuredModelEnv : this.env,
    );
    return (
      (modelId === undefined ? undefined : profileProblem(modelId, this.config, this.env)) ??
      resolution
    );
  }

  /**
   * As {@link resolveModel}, and a bare name (`claude-sonnet-4.5`, as Copilot SDK apps name
   * models) is resolved against the configured providers: the configured or listed
   * (`TURNLOOP_MODELS`) id with that model name, else, when it has no colon, that name on the
   * configured model's provider and endpoint. A name with a colon that names no configured model
   * (`nosuch:x`) is a provider turnloop does not have: refused with resolveModel's message, as
   * `/model` refuses it. Never throws.
   */
  resolveModelName(name: string | undefined): ModelResolution {
    return this.resolveModel(name === undefined ? undefined : this.withProvider(name));
  }

  /** The configured model id (`--model`, else `TURNLOOP_MODEL`) and those in `TURNLOOP_MODELS`. */
  configuredModels(): string[] {
    const listed = (this.env.TURNLOOP_MODELS ?? "").split(",").map((id) => id.trim());
    const ids = [this.config.model?.resolved, ...listed];
    return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ""))];
  }

  /** `modelId`, or for a bare name the configured id it names (see {@link resolveModel}). */
  private withProvider(modelId: string): string {
    if (hasProviderPrefix(modelId)) {
      return modelId;
    }
    const configured = this.configuredModels().filter(hasProviderPrefix);
    const named = configured.find((id) => id.slice(id.indexOf(":") + 1) === modelId);
    const first = configured[0];
    if (named !== undefined || first === undefined || modelId.includes(":")) {
      return named ?? modelId;
    }
    return `${first.slice(0, first.indexOf(":"))}:${modelId}`;
  }

  /**
   * The model of a reopened session: `--model` when given, else `recorded`, the one it ran with
   * (`TURNLOOP_MODEL` and the config files' `model` choose new sessions' model, not a resumed
   * one's: README, "The interactive session"); when that does not resolve (e.g. its key is not
   * set here), the configured model. The recorded model's problem is reported when neither
   * resolves. `unavailable` says why the recorded model is not used when that is the reason.
   */
  modelForSession(recorded: string): ModelResolution & { unavailable?: string } {
    const given = this.config.model?.source === "--model" ? this.config.model.resolved : undefined;
    const own = this.resolveModel(given ?? recorded);
    if (own.ok) {
      return own;
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
   * the config files' `contextWindows`, the catalogue.
   */
  contextWindowOf(modelId: string): number {
    const contextWindows = Object.fromEntries(
      Object.entries(this.config.contextWindows).map(([model, size]) => [model, size.value]),
    );
    const contextWindow = this.config.contextWindow?.value;
    return contextWindowOf(
      modelId,
      { contextWindows, ...(contextWindow === undefined ? {} : { contextWindow }) },
      this.env,
    );
  }
}

/**
 * What the config's provider profile (`model: "<profile>:<model>"`, run-config.ts) leaves missing
 * for `modelId`, a model on that profile's wire, said in the profile's terms: no endpoint (an
 * `openai-compatible` profile without `baseUrl`, and no `--base-url`, `TURNLOOP_BASE_URL` or file
 * `baseUrl`), or no key in the variable its `apiKeyEnv` names (unset or empty, `TURNLOOP_API_KEY`
 * unset too). Without this the endpoint's message named only the flags, and the key's absence
 * was silent until the provider answered 401 (or another variable's key was sent there).
 * `undefined` when the model is no profile's or nothing is missing.
 */
function profileProblem(
  modelId: string,
  config: RunConfig,
  env: NodeJS.ProcessEnv,
): Extract<ModelResolution, { ok: false }> | undefined {
  const written = config.model?.value ?? "";
  const name = written.slice(0, Math.max(0, written.indexOf(":")));
  const profile = Object.hasOwn(config.providers, name) ? config.providers[name] : undefined;
  if (profile === undefined || !modelId.startsWith(`${profile.value.type}:`)) {
    return undefined;
  }
  const where = `in ${profile.source}`;
  const shown = modelId === config.model?.resolved ? written : modelId;
  if (profile.value.type === "openai-compatible" && config.baseUrl === undefined) {
    return {
      ok: false,
      message: `turnloop: ${shown} needs an endpoint: set providers.${name}.baseUrl ${where} (or --base-url or TURNLOOP_BASE_URL), e.g. http://127.0.0.1:8000/v1.`,
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
    message: `turnloop: ${shown} needs an API key: ${variable} is not set (providers.${name}.apiKeyEnv ${where} names it); set it, or TURNLOOP_API_KEY.`,
    missingKey: { variable, modelId },
  };
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
