/**
 * Which provider needs which API key, and which prefixes name a provider, with no provider code
 * loaded: the interactive face checks a key, and every face the config files' model ids, before
 * anything is drawn or run (issue 24 item 10, issue 26); model resolution uses the same rules.
 * Also where a provider is reached: its vendor's endpoint variables (a base URL with a query
 * string: base-url.ts).
 */

import { closestName } from "../events/setting-words.js";
import { withoutTrailingSlashes, withPathPart } from "./base-url.js";

/** The wire a model name's prefix selects. */
export type ProviderName = "openai" | "openai-chat" | "anthropic" | "ollama" | "openai-compatible";

/** Every provider prefix turnloop knows, in the order messages list them. */
export const PROVIDER_NAMES: readonly ProviderName[] = [
  "openai",
  "openai-chat",
  "anthropic",
  "ollama",
  "openai-compatible",
];

/** Whether `model` starts with a turnloop provider prefix (`anthropic:…`). */
export function hasProviderPrefix(model: string): boolean {
  const separator = model.indexOf(":");
  return separator > 0 && PROVIDER_NAMES.includes(model.slice(0, separator) as ProviderName);
}

/**
 * ` (did you mean "anthropic:foo"?)` for a model id whose prefix is no provider (nor one of
 * `profiles`) but close to one, by the rule flags and config keys are suggested by
 * (events/setting-words.ts `closestName`); `""` otherwise.
 */
export function meantModelHint(model: string, profiles: readonly string[] = []): string {
  const separator = model.indexOf(":");
  const prefix = separator > 0 ? model.slice(0, separator) : "";
  const known = [...PROVIDER_NAMES, ...profiles];
  if (prefix === "" || known.includes(prefix)) {
    return "";
  }
  const meant = closestName(prefix, known);
  return meant === undefined ? "" : ` (did you mean "${meant}${model.slice(separator)}"?)`;
}

/** The environment variable a provider's key is read from (`TURNLOOP_API_KEY` overrides it). */
export function apiKeyVariable(provider: ProviderName): "ANTHROPIC_API_KEY" | "OPENAI_API_KEY" {
  return provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

/** A variable a provider's own endpoint is read from (README, "Choosing a model"). */
export type EndpointVariable = "OPENAI_BASE_URL" | "ANTHROPIC_BASE_URL" | "OLLAMA_HOST";

/** Every {@link EndpointVariable}; the run config reads them (session/run-config.ts). */
export const ENDPOINT_VARIABLES: readonly EndpointVariable[] = [
  "OPENAI_BASE_URL",
  "ANTHROPIC_BASE_URL",
  "OLLAMA_HOST",
];

/** The variable `provider` takes its endpoint from when no base URL is given; none for openai-compatible. */
export function endpointVariable(provider: ProviderName): EndpointVariable | undefined {
  switch (provider) {
    case "openai":
    case "openai-chat":
      return "OPENAI_BASE_URL";
    case "anthropic":
      return "ANTHROPIC_BASE_URL";
    case "ollama":
      return "OLLAMA_HOST";
    case "openai-compatible":
      return undefined;
  }
}

/**
 * The API base (with its version path) that an endpoint variable's `value` names: the base URL
 * rule of the variable's wire ({@link wireBaseUrl}), which is how the vendor's own tools read it
 * (`OPENAI_BASE_URL` as the OpenAI SDKs, `ANTHROPIC_BASE_URL` as Anthropic's SDKs and Claude Code,
 * `OLLAMA_HOST` as Ollama). The result may be no URL at all; the run config checks it
 * (session/face-config.ts).
 */
export function vendorEndpoint(variable: EndpointVariable, value: string): string {
  switch (variable) {
    case "OPENAI_BASE_URL":
      return wireBaseUrl("openai", value);
    case "ANTHROPIC_BASE_URL":
      return wireBaseUrl("anthropic", value);
    case "OLLAMA_HOST":
      return wireBaseUrl("ollama", value);
  }
}

/**
 * What a base URL of `provider`'s wire may be, one rule for every place it is given (`--base-url`,
 * `TURNLOOP_BASE_URL`, a config file's `baseUrl` or profile's, the vendor variable), README
 * "Choosing a model": on the OpenAI wires and any OpenAI-compatible server, the API base as it is
 * (the wire's path, `/chat/completions` or `/responses`, is added: `http://h/v1`); on Anthropic's,
 * the host alone or any path, to which `/v1` is added unless the path ends in it (as Anthropic's
 * SDKs read `ANTHROPIC_BASE_URL`: `http://h` and `http://h/v1` both ask `http://h/v1/messages`);
 * Ollama's as Ollama reads `OLLAMA_HOST`, `host[:port]` or a URL (`http://` when no scheme is
 * given), with its OpenAI-compatible API's `/v1` added unless the path ends in it. A query string
 * stays after the path ({@link withPathPart}); a blank value is kept as it is.
 */
export function wireBaseUrl(provider: ProviderName, value: string): string {
  const trimmed = withoutTrailingSlashes(value.trim());
  if (trimmed === "") {
    return value;
  }
  const versioned = (path: string) => (/\/v1$/.test(path) ? path : `${path}/v1`);
  switch (provider) {
    case "openai":
    case "openai-chat":
    case "openai-compatible":
      return value;
    case "anthropic":
      return withPathPart(trimmed, versioned);
    case "ollama":
      return withPathPart(trimmed, (path) =>
        versioned(/^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : `http://${path}`),
      );
  }
}

/** Whether a provider cannot be reached without a key (local and compatible servers can). */
export function needsApiKey(provider: ProviderName): boolean {
  return provider === "openai" || provider === "openai-chat" || provider === "anthropic";
}

/** A key variable's value; an empty one (`OPENAI_API_KEY=`) is no key, as if unset. */
function keyValue(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/** The key `TURNLOOP_API_KEY` holds, if set and not empty; it overrides every vendor variable. */
export function turnloopApiKey(env: NodeJS.ProcessEnv): string | undefined {
  return keyValue(env.TURNLOOP_API_KEY);
}

/**
 * The key a provider's vendor variable holds, if set and not empty (`TURNLOOP_API_KEY` is checked
 * by the caller).
 */
export function vendorApiKey(provider: ProviderName, env: NodeJS.ProcessEnv): string | undefined {
  switch (provider) {
    case "openai":
    case "openai-chat":
    case "ollama":
    case "openai-compatible":
      return keyValue(env.OPENAI_API_KEY);
    case "anthropic":
      return keyValue(env.ANTHROPIC_API_KEY);
  }
}

/**
 * Whether `modelId` (`<provider>:<model>`) names a provider that needs a key none of its
 * variables holds. `false` for an unknown provider: model resolution reports that itself.
 */
export function missingApiKey(modelId: string, env: NodeJS.ProcessEnv): boolean {
  const provider = modelId.slice(0, modelId.indexOf(":")) as ProviderName;
  if (!PROVIDER_NAMES.includes(provider) || !needsApiKey(provider)) {
    return false;
  }
  return turnloopApiKey(env) === undefined && vendorApiKey(provider, env) === undefined;
}
