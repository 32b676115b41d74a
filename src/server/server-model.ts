/**
 * Which model a server session uses. Copilot SDK apps name a model and may pass a BYOK `provider`
 * (`{type, wireApi, baseUrl, apiKey}`); turnloop names models `<provider>:<model>`. The rules:
 *
 * 1. `provider` given: `type: "anthropic"` → `anthropic:<model>`; `wireApi: "responses"` →
 *    `openai:<model>`; otherwise `openai-chat:<model>` (Chat Completions), with the provider's
 *    `baseUrl` and key (`bearerToken` wins over `apiKey`). `azure` is not supported.
 * 2. `model` with a known `<provider>:` prefix: resolved as `--model` is (environment keys, base URL).
 * 3. Otherwise (no model, or a bare name such as `gpt-4.1`): the server's own model (`--model` /
 *    `TURNLOOP_MODEL`), since whoever started the server chose where its requests go.
 */

import { contextWindowOf } from "../llm/context-window.js";
import { hasProviderPrefix, type ProviderName } from "../llm/models.js";
import type { ModelResolution, SessionHost } from "../session/host.js";
import type { ProviderParams } from "./params.js";

/**
 * Chooses the model for `session.create` / `session.resume` / `session.model.switchTo` by the
 * rules above. `fallbackName` is the model name to use with a `provider` when `model` is absent
 * (on resume: the name recorded in `session.start`). Never throws.
 */
export function chooseModel(
  request: { model?: string | undefined; provider?: ProviderParams | undefined },
  host: SessionHost,
  fallbackName?: string,
): ModelResolution {
  const { model, provider } = request;
  if (provider !== undefined) {
    const name = model === undefined ? fallbackName : withoutPrefix(model);
    if (name === undefined) {
      return { ok: false, message: "a provider needs a model name: set model" };
    }
    return byokModel(provider, name);
  }
  if (model !== undefined && hasProviderPrefix(model)) {
    return withMessage(host.resolveModel(model));
  }
  const chosen = host.resolveModel();
  if (!chosen.ok && model !== undefined) {
    return {
      ok: false,
      message: `model "${model}" names no provider and the server has no model configured: use <provider>:<model> (e.g. openai-chat:${model}), pass a provider, or start the server with --model`,
    };
  }
  return withMessage(chosen);
}

/** `models.list` entries in the Copilot SDK's `ModelInfo` shape, for the server's own model. */
export function listedModels(host: SessionHost) {
  const chosen = host.resolveModel();
  if (!chosen.ok) {
    return [];
  }
  const { id } = chosen.configuration;
  return [
    {
      id,
      name: id,
      capabilities: {
        supports: { vision: false, reasoningEffort: false },
        limits: { max_context_window_tokens: contextWindowOf(id, host.face, host.env) },
      },
    },
  ];
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
      baseUrl: provider.baseUrl.replace(/\/+$/, ""),
      // The AI SDK clients refuse to start without a key; local servers ignore it.
      apiKey: provider.bearerToken ?? provider.apiKey ?? "not-needed",
    },
  };
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
