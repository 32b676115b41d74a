/**
 * Which model a server session uses. Copilot SDK apps name a model (often bare, e.g.
 * `claude-sonnet-4.5`) and may pass a BYOK `provider` (`{type, wireApi, baseUrl, apiKey, headers,
 * modelId, wireModel}`); turnloop names models `<provider>:<model>`. The rules:
 *
 * 1. `provider` given: `type: "anthropic"` → `anthropic:<name>`; `wireApi: "responses"` →
 *    `openai:<name>`; otherwise `openai-chat:<name>` (Chat Completions), with the provider's
 *    `baseUrl`, key (`bearerToken` wins over `apiKey`) and `headers`. The name sent on the wire is
 *    `provider.wireModel`, else `model`, else `provider.modelId` (Copilot's BYOK fields), else the
 *    recorded one on resume, else the server's configured model's name. `azure` is not supported.
 * 2. Otherwise the SessionHost's one resolution: `<provider>:<model>` as `--model` is, a bare name
 *    by the host's one rule (see {@link SessionHost.resolveModel}; `x:y` with no
 *    provider `x` is refused, as `/model` refuses it), no model at all = the server's own
 *    (`--model` / `TURNLOOP_MODEL`).
 */

import { withoutTrailingSlashes } from "../llm/base-url.js";
import { hasProviderPrefix, type ModelSettingNames, type ProviderName } from "../llm/models.js";
import type { ModelResolution, SessionHost } from "../session/host.js";
import type { ProviderParams } from "./params.js";

/**
 * Chooses the model for `session.create` / `session.resume` / `session.model.switchTo` by the
 * rules above. `fallbackName` is the model name to use with a `provider` when no name is given
 * (on resume: the name recorded in `session.start`); `current`, the session's model in use, whose
 * provider a bare name runs on (`session.model.switchTo`). Never throws.
 */
export function chooseModel(
  request: { model?: string | undefined; provider?: ProviderParams | undefined },
  host: SessionHost,
  fallbackName?: string,
  current?: string,
): ModelResolution {
  const { model, provider } = request;
  if (provider !== undefined) {
    const name =
      provider.wireModel ??
      (model === undefined ? undefined : withoutPrefix(model)) ??
      provider.modelId ??
      fallbackName ??
      configuredName(host);
    if (name === undefined) {
      return { ok: false, message: "a provider needs a model name: set model or provider.modelId" };
    }
    return byokModel(provider, name);
  }
  const chosen = host.resolveModel(model, current);
  // A bare name; `x:y` with no provider `x` gets the host's "unknown model" (host-models.ts).
  if (!chosen.ok && model !== undefined && !model.includes(":")) {
    return {
      ok: false,
      message: `model "${model}" names no provider and the server has no model configured: use <provider>:<model> (e.g. openai-chat:${model}), pass a provider, or start the server with --model`,
    };
  }
  return withMessage(chosen);
}

/**
 * How the server's errors name the settings of a session's model (llm/models.ts
 * `ModelSettingNames`): what an app sets, a session's options, and the server's environment,
 * never a flag of the command line, which an app does not type (trial 31, LOW 10). The host of
 * `runServerCommand` (main.ts) says them.
 */
export const SERVER_SETTING_NAMES: ModelSettingNames = {
  model:
    "the session's model (createSession({ model: \"<provider>:<model>\" })) or TURNLOOP_MODEL in the server's environment",
  switchModel: 'switch with session.setModel("<provider>:<model>")',
  baseUrl:
    "the session's provider (createSession({ model, provider: { type: \"openai\", baseUrl } })) or TURNLOOP_BASE_URL in the server's environment",
  resumeModel: 'resumeSession(sessionId, { model: "<provider>:<model>" })',
  environment: " in the server's environment",
  contextWindow: "TURNLOOP_CONTEXT_WINDOW in the server's environment",
};

/**
 * The model of a resumed session: {@link chooseModel} of `request` (`model` default `recorded`,
 * the one it ran with; with a `provider`, `recorded`'s name). `recorded` itself naming a config
 * profile that no config file here defines now is refused naming the profile
 * (`SessionHost.removedProfileProblem`). Never throws.
 */
export function chooseResumedModel(
  request: { model?: string | undefined; provider?: ProviderParams | undefined },
  host: SessionHost,
  recorded: string,
): ModelResolution {
  const { model, provider } = request;
  const choice = chooseModel(
    { model: model ?? recorded, provider },
    host,
    recorded.slice(recorded.indexOf(":") + 1),
  );
  const removed =
    choice.ok || model !== undefined || provider !== undefined
      ? undefined
      : host.removedProfileProblem(recorded);
  return removed === undefined ? choice : withMessage(removed);
}

/**
 * `models.list` entries in the Copilot SDK's `ModelInfo` shape (`{id, name, capabilities:
 * {supports, limits}, policy, supportedReasoningEfforts, defaultReasoningEffort}`, the SDK's
 * `types.d.ts`): the server's configured model and those in `TURNLOOP_MODELS`, each that resolves.
 * Ids are bare model names as with Copilot (`gpt-4.1`; a config profile's `lab:m` is `m`), which
 * `model` and `session.model.switchTo` take back; a name two providers or profiles share keeps
 * its `<provider>:` or `<profile>:` prefix after its first listing, so that every id names one
 * model.
 */
export function listedModels(host: SessionHost) {
  const ids = host.configuredModels().filter((id) => host.resolveModel(id).ok);
  const seen = new Set<string>();
  return ids.map((id) => {
    const name = withoutPrefix(host.typeIdOf(id));
    const listedId = seen.has(name) ? id : name;
    seen.add(name);
    return {
      id: listedId,
      name,
      capabilities: {
        supports: { vision: false, reasoningEffort: true },
        limits: { max_context_window_tokens: host.contextWindowOf(id) },
      },
      policy: { state: "enabled", terms: "" },
      supportedReasoningEfforts: ["low", "medium", "high"],
      defaultReasoningEffort: "medium",
    };
  });
}

function byokModel(provider: ProviderParams, name: string): ModelResolution {
  if (provider.type === "azure") {
    return { ok: false, message: "azure providers are not supported by turnloop yet" };
  }
  const providerName: ProviderName =
    provider.type === "anthropic"
      ? "anthropic"
      : provider.wireApi === "responses"
        ? "openai"
        : "openai-chat";
  return {
    ok: true,
    configuration: {
      id: `${providerName}:${name}`,
      provider: providerName,
      modelName: name,
      baseUrl: withoutTrailingSlashes(provider.baseUrl),
      // The AI SDK clients refuse to start without a key; local servers ignore it.
      apiKey: provider.bearerToken ?? provider.apiKey ?? "not-needed",
      ...(provider.headers === undefined ? {} : { headers: provider.headers }),
    },
  };
}

function configuredName(host: SessionHost): string | undefined {
  const [configured] = host.configuredModels();
  return configured === undefined ? undefined : withoutPrefix(host.typeIdOf(configured));
}

function withoutPrefix(model: string): string {
  return hasProviderPrefix(model) ? model.slice(model.indexOf(":") + 1) : model;
}

function withMessage(result: ModelResolution): ModelResolution {
  if (result.ok) {
    return result;
  }
  return { ok: false, message: result.message.replace(/^turnloop: /, "") };
}
