import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AiSdkProviderOptions, RetryPolicy } from "./ai-sdk-provider.js";
import { AiSdkProvider } from "./ai-sdk-provider.js";
import {
  apiKeyVariable,
  type EndpointVariable,
  endpointVariable,
  meantModelHint,
  needsApiKey,
  PROVIDER_NAMES,
  type ProviderName,
  turnloopApiKey,
  vendorApiKey,
  vendorEndpoint,
  wireBaseUrl,
} from "./api-keys.js";
import { endpointName, endpointOptions, sentKeyFrom, withoutTrailingSlashes } from "./base-url.js";
import { withoutOpenAiItemIds } from "./convert.js";
import { prepareReleasedLockErrors } from "./first-response.js";
import { unsendableHeaderCharacter } from "./http-headers.js";
import { withHugeBodies } from "./huge-messages.js";
import {
  COMMAND_LINE_SETTINGS,
  type ModelSettingNames,
  noModelMessage,
} from "./model-setting-names.js";
import { openAiChatQuirksFetch } from "./openai-chat-quirks.js";
import type { Provider } from "./provider.js";
import { withStoredReplies } from "./stored-replies.js";

export {
  apiKeyVariable,
  hasProviderPrefix,
  needsApiKey,
  PROVIDER_NAMES,
  type ProviderName,
} from "./api-keys.js";
export {
  COMMAND_LINE_SETTINGS,
  commandLineSettings,
  type ModelSettingNames,
  noModelMessage,
} from "./model-setting-names.js";

/** A model choice with everything needed to reach it. */
export interface ModelConfiguration {
  /** `<provider>:<model>` or `<profile>:<model>` (a config profile's), as given: the session's
   * model id. */
  id: string;
  /** The wire: the prefix's provider, or the profile's `type`. */
  provider: ProviderName;
  modelName: string;
  /** API base including the version path, e.g. `http://127.0.0.1:11434/v1`; absent = the vendor's. */
  baseUrl?: string;
  apiKey?: string;
  /** The variable {@link apiKey} was read from (named when the key is refused; never the key). */
  apiKeySource?: string;
  /** HTTP headers sent with every request to this model (a BYOK provider's `headers`). */
  headers?: Record<string, string>;
}

/**
 * A model's settings as the run config resolved them (session/run-config.ts, the one reader of the
 * flags, the variables and the config files; an empty variable counts as unset there).
 */
export interface ModelSettingsInput {
  /** `<provider>:<model>`: `--model`, `TURNLOOP_MODEL` or a config file's. */
  model?: string;
  /** Where `model` came from (`--model`, `TURNLOOP_MODEL`, a config file's path), named by the
   * error of a model that names no provider; absent when it came from elsewhere (`/model`). */
  modelSource?: string;
  /** `--base-url`, `TURNLOOP_BASE_URL` or a config file's; overrides `endpoints`. */
  baseUrl?: string;
  /** The providers' own endpoint variables that are set, by name, each as written. */
  endpoints?: Readonly<Partial<Record<EndpointVariable, string>>>;
  /**
   * The config profile `model`'s prefix names (`lab` of `lab:m`; session/run-config.ts): its
   * `type` is the wire, and its `apiKeyEnv` the only variable besides `TURNLOOP_API_KEY` the key
   * is read from (never the provider's usual one, which may belong to another endpoint).
   */
  profile?: { type: ProviderName; apiKeyVariable?: string };
}

/** Why a model that is otherwise configured cannot be used: its key is not set. */
export interface MissingKey {
  /** The variable to set, e.g. `ANTHROPIC_API_KEY`, or a config profile's `apiKeyEnv`
   * (`TURNLOOP_API_KEY` also works). */
  variable: string;
  /** The model that needs it, `<provider>:<model>`. */
  modelId: string;
}

/** Why a model id cannot be run ({@link resolveModel}): a message a person can act on. */
export interface ModelFailure {
  ok: false;
  message: string;
  missingKey?: MissingKey;
  unusableKey?: true;
  /** The model is a bare name (`gpt-4o`) and nothing gave it a provider. */
  noProvider?: true;
}

/**
 * Resolves the model of `input`: the wire is its prefix's provider, or `input.profile`'s type (the
 * id, `lab:m`, is kept as given); the endpoint is `input.baseUrl`, else the provider's endpoint
 * variable in `input.endpoints`, either read by the wire's base URL rule (api-keys.ts
 * `wireBaseUrl`: Anthropic's and Ollama's get `/v1` when they lack it; Ollama's
 * default `127.0.0.1:11434`); keys from `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, or the profile's
 * `apiKeyEnv` variable (`TURNLOOP_API_KEY` overrides each), read from `env`, the session host's
 * environment. Returns an error message instead of throwing; `missingKey` or `unusableKey` (a
 * placeholder) when the key is the problem, not the model or its endpoint. A missing model or
 * endpoint is said in `names`, the words of the face in use.
 */
export function resolveModel(
  input: ModelSettingsInput,
  env: NodeJS.ProcessEnv,
  names: ModelSettingNames = COMMAND_LINE_SETTINGS,
): { ok: true; configuration: ModelConfiguration } | ModelFailure {
  const id = input.model;
  if (id === undefined || id.trim() === "") {
    return { ok: false, message: noModelMessage(names) };
  }
  const separator = id.indexOf(":");
  const provider = input.profile?.type ?? (id.slice(0, separator) as ProviderName);
  const modelName = id.slice(separator + 1);
  if (separator <= 0 || !PROVIDER_NAMES.includes(provider) || modelName === "") {
    const message = unknownModelMessage(id, input.modelSource);
    return separator < 0 ? { ok: false, message, noProvider: true } : { ok: false, message };
  }
  const baseUrl =
    input.baseUrl === undefined
      ? vendorBaseUrl(provider, input.endpoints ?? {})
      : wireBaseUrl(provider, input.baseUrl);
  if (provider === "openai-compatible" && baseUrl === undefined) {
    return {
      ok: false,
      message: noEndpointMessage(id, names, input.endpoints),
    };
  }
  const key = apiKeyOf(provider, input.profile?.apiKeyVariable, env);
  if (key.value === undefined && needsApiKey(provider)) {
    return {
      ok: false,
      message: `turnloop: ${id} needs an API key: set ${key.variable} (or TURNLOOP_API_KEY).`,
      missingKey: { variable: key.variable, modelId: id },
    };
  }
  const keyProblem =
    key.value === undefined ? undefined : unusableKeyProblem(key.value, key.variable);
  if (keyProblem !== undefined) {
    return { ok: false, message: keyProblem, unusableKey: true };
  }
  return {
    ok: true,
    configuration: {
      id,
      provider,
      modelName,
      ...(baseUrl === undefined ? {} : { baseUrl: withoutTrailingSlashes(baseUrl) }),
      ...(key.value === undefined ? {} : { apiKey: key.value, apiKeySource: key.variable }),
    },
  };
}

/** What an `openai-compatible:` model without an endpoint is told, in `names`' words, and with
 * OPENAI_BASE_URL set, that only the OpenAI providers read it (trial 44 F5). */
function noEndpointMessage(
  id: string,
  names: ModelSettingNames,
  endpoints: ModelSettingsInput["endpoints"],
): string {
  const unread =
    endpoints?.OPENAI_BASE_URL === undefined
      ? ""
      : " (OPENAI_BASE_URL is set, but only openai: and openai-chat: models read it)";
  return `turnloop: ${id} needs an endpoint (e.g. http://127.0.0.1:8000/v1): set ${names.baseUrl}${unread}.`;
}

/**
 * Why `id` is no model: its prefix names no provider (and the provider it is close to), or, for a
 * bare name (`gpt-4o`, no colon), that it names none and where it came from (`source`). The ids
 * the model catalogue lists a bare name under are added by session/host-models.ts, which loads
 * the catalogue's module anyway (this one is loaded before `turnloop acp` answers initialize).
 */
function unknownModelMessage(id: string, source: string | undefined): string {
  const use = `Use <provider>:<model> with provider one of ${PROVIDER_NAMES.join(", ")}.`;
  if (id.includes(":")) {
    return `turnloop: unknown model "${id}"${meantModelHint(id)}. ${use}`;
  }
  const from = source === undefined ? "" : ` from ${source}`;
  return `turnloop: unknown model "${id}"${from}: it names no provider. ${use}`;
}

/**
 * The key of a model on `provider`'s wire and the variable it is (or would be) read from:
 * `TURNLOOP_API_KEY` when set, else `profileVariable` (a config profile's `apiKeyEnv`) when
 * given, else the provider's usual variable. Set but empty counts as unset.
 */
function apiKeyOf(
  provider: ProviderName,
  profileVariable: string | undefined,
  env: NodeJS.ProcessEnv,
): { value: string | undefined; variable: string } {
  const overriding = turnloopApiKey(env);
  if (overriding !== undefined) {
    return { value: overriding, variable: "TURNLOOP_API_KEY" };
  }
  if (profileVariable !== undefined) {
    const value = env[profileVariable];
    return { value: value === "" ? undefined : value, variable: profileVariable };
  }
  return { value: vendorApiKey(provider, env), variable: apiKeyVariable(provider) };
}

/** `<provider>:<model>` of `configuration`: its id on its wire's provider, which the model
 * catalogue (prices, context windows) knows it by; a profile's model's id names the profile. */
export function typeIdOf(
  configuration: Pick<ModelConfiguration, "provider" | "modelName">,
): string {
  return `${configuration.provider}:${configuration.modelName}`;
}

/** Why `apiKey`, read from `variable`, cannot be a real key (a placeholder), or `undefined`. */
function unusableKeyProblem(apiKey: string, variable: string): string | undefined {
  if (looksLikePlaceholder(apiKey)) {
    return `turnloop: the API key in ${variable} looks like a placeholder ("${apiKey.slice(0, 24)}"); set your real key.`;
  }
  if (unsendableHeaderCharacter(apiKey) !== undefined) {
    return `turnloop: the API key in ${variable} contains characters that cannot be sent in an HTTP header (a placeholder such as sk-… copied from an example?); set your real key.`;
  }
  return undefined;
}

/**
 * Whether a key is a documentation placeholder rather than a key: `<your key>`-style angle
 * brackets or whitespace inside (no provider's key has either). Keys with `…` are refused by
 * http-headers.ts.
 */
function looksLikePlaceholder(key: string): boolean {
  return /^<.*>$/.test(key.trim()) || /\s/.test(key.trim());
}

/** The endpoint `provider` reads from its variable in `endpoints`, if set (Ollama: its default). */
function vendorBaseUrl(
  provider: ProviderName,
  endpoints: Readonly<Partial<Record<EndpointVariable, string>>>,
): string | undefined {
  const variable = endpointVariable(provider);
  const value = variable === undefined ? undefined : endpoints[variable];
  if (variable === "OLLAMA_HOST") {
    return vendorEndpoint(variable, value ?? "127.0.0.1:11434");
  }
  return variable === undefined || value === undefined
    ? undefined
    : vendorEndpoint(variable, value);
}

/**
 * Every variable {@link resolveModel} reads a provider API key from. The session host leaves
 * them, and every config profile's `apiKeyEnv`, out of commands' environment
 * (session/command-environment.ts).
 */
export const API_KEY_VARIABLES: readonly string[] = [
  "TURNLOOP_API_KEY",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
];

/** Options for tests and tuning; production uses the defaults. */
export interface ProviderTuning {
  retry?: Partial<RetryPolicy>;
  /** ms without a stream part before an attempt fails as stalled. */
  idleTimeoutMs?: number;
}

/**
 * Creates the {@link Provider} for a configuration. Provider packages are imported on the first
 * request, not here, so start-up does not pay for them.
 */
export function createProvider(
  configuration: ModelConfiguration,
  tuning: ProviderTuning = {},
): Provider {
  const { provider, modelName } = configuration;
  // Every wire's fetch below is wrapped by withHugeBodies, which fills in shared huge texts, around
  // withStoredReplies, which hands back a reply already read (stored-replies.ts).
  const common = {
    id: configuration.id,
    typeId: typeIdOf(configuration),
    ...tuning,
    sharesHugeTexts: true,
    endpoint: endpointName(provider, configuration.baseUrl),
    keySource: sentKeyFrom(provider, configuration),
  };
  // A model that takes no images gets a note instead, whatever its wire takes ({@link takesNoImages}).
  const images = !takesNoImages(modelName);
  switch (provider) {
    case "openai":
      return openAiResponsesProvider(configuration, common, images);
    case "openai-chat":
      return new AiSdkProvider({
        ...common,
        // Chat Completions takes images as `image_url` parts (data URLs) in user messages only.
        userImages: images,
        createModel: async () => {
          const { createOpenAI } = await import("@ai-sdk/openai");
          prepareReleasedLockErrors();
          const fetch = withHugeBodies(withStoredReplies(openAiChatQuirksFetch));
          return createOpenAI(endpointOptions(configuration, fetch)).chat(modelName);
        },
      });
    case "anthropic":
      return new AiSdkProvider({
        ...common,
        toolResultImages: true,
        // The SDK reports a finish from `message_delta` and again at the end of any body.
        isTerminator: (chunk) => (chunk as { type?: unknown } | null)?.type === "message_stop",
        createModel: async () => {
          const { anthropicModel } = await import("./cache-breakpoints.js");
          prepareReleasedLockErrors();
          const endpoint = endpointOptions(configuration, withHugeBodies(withStoredReplies()));
          return anthropicModel(endpoint, modelName);
        },
      });
    case "ollama":
    case "openai-compatible":
      return new AiSdkProvider({
        ...common,
        userImages: images,
        createModel: ({ includeUsage }) => createCompatibleModel(configuration, includeUsage),
      });
  }
}

/** The OpenAI Responses wire: stateless, so nothing is stored server-side (case 23). */
function openAiResponsesProvider(
  configuration: ModelConfiguration,
  common: Omit<AiSdkProviderOptions, "createModel">,
  images: boolean,
): Provider {
  const { modelName } = configuration;
  return new AiSdkProvider({
    ...common,
    providerOptions: { openai: { store: false } },
    replayFilter: withoutOpenAiItemIds,
    toolResultImages: images,
    createModel: async () => {
      const { createOpenAI } = await import("@ai-sdk/openai");
      prepareReleasedLockErrors();
      return createOpenAI(
        endpointOptions(configuration, withHugeBodies(withStoredReplies())),
      ).responses(modelName);
    },
  });
}

async function createCompatibleModel(
  configuration: ModelConfiguration,
  includeUsage: boolean,
): Promise<LanguageModelV3> {
  const [{ createOpenAICompatible, VERSION }, { withKeptMessages, withSyncChunkValidation }] =
    await Promise.all([import("@ai-sdk/openai-compatible"), import("./sync-chunk-validation.js")]);
  const endpoint = endpointOptions(
    configuration,
    withHugeBodies(withStoredReplies(openAiChatQuirksFetch)),
  );
  const model = createOpenAICompatible({
    name: configuration.provider,
    ...endpoint,
    baseURL: endpoint.baseURL ?? "",
    apiKey: configuration.apiKey ?? "unused",
    includeUsage,
  }).chatModel(configuration.modelName);
  return withKeptMessages(withSyncChunkValidation(model, VERSION));
}

/**
 * Text-only models (issue 27 item 5): the model catalogue (`@pydantic/genai-prices`,
 * llm/model-catalogue.ts) lists prices and context windows but not input modalities, so the
 * models whose makers document text-only input are listed here, by the name after the
 * `provider:` prefix: OpenAI's o1-mini, o3-mini and GPT-3.5 and the first GPT-4 (not `-turbo` or
 * `-o`), DeepSeek's chat, reasoner and coder API models, Mistral's Codestral, and the local
 * text-only families Ollama serves (its tags after `:`). A model not listed is taken to accept
 * images where its wire does.
 */
const TEXT_ONLY_MODELS: readonly RegExp[] = [
  /^o1-mini(?:-\d{4}-\d{2}-\d{2})?$/,
  /^o3-mini(?:-\d{4}-\d{2}-\d{2})?$/,
  /^gpt-3\.5-turbo/,
  /^gpt-4(?:-0314|-0613|-32k.*)?$/,
  /^deepseek-(?:chat|reasoner|coder)$/,
  /^codestral/,
  /^(?:qwen2\.5-coder|qwen3-coder|deepseek-r1|deepseek-coder-v2|codellama|llama3|llama3\.1|llama3\.3|mistral|phi4)(?::.+)?$/,
];

/** Whether the model named `modelName` (without the `provider:` prefix) takes no images. */
export function takesNoImages(modelName: string): boolean {
  return TEXT_ONLY_MODELS.some((pattern) => pattern.test(modelName));
}
