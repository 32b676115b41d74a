import * as acp from "@agentclientprotocol/sdk";
import {
  apiKeyVariable,
  hasProviderPrefix,
  needsApiKey,
  type ProviderName,
} from "../llm/models.js";
import type { ModelResolution, SessionHost } from "../session/host.js";
import type { RunConfig } from "../session/run-config.js";
import { ERROR_CODES, internalError, invalidParams } from "./errors.js";

/** `_meta` key of an auth method naming the environment variable it is about. */
const VARIABLE_META_KEY = "turnloop/environmentVariable";

/** What the `authMethods` are made from: the run config's model, else `TURNLOOP_MODEL`. */
export interface AuthenticationSettings {
  config: RunConfig;
  env: NodeJS.ProcessEnv;
}

/**
 * ACP v1 authentication: the `authMethods` of the `initialize` answer. When the configured model's
 * provider needs a key, one method names the variable it is read from (SDK 2.4.0's schema has
 * `agent` and `terminal` methods only, so this is an `agent` method whose id, name and `_meta`
 * name the variable: the client can tell the user what to set, then call `authenticate` to check).
 * No model, or one that needs no key (ollama, openai-compatible): no methods.
 */
export function authMethods(settings: AuthenticationSettings): acp.AuthMethod[] {
  const modelId = settings.config.model?.resolved ?? settings.env.TURNLOOP_MODEL;
  if (modelId === undefined || !hasProviderPrefix(modelId)) {
    return [];
  }
  const provider = modelId.slice(0, modelId.indexOf(":")) as ProviderName;
  if (!needsApiKey(provider)) {
    return [];
  }
  const variable = apiKeyVariable(provider);
  return [
    {
      id: methodId(variable),
      name: `API key in ${variable}`,
      description:
        `Set ${variable} (or TURNLOOP_API_KEY) in the environment the editor starts ` +
        `turnloop acp with, then restart the agent. ${modelId} reads its key from there.`,
      _meta: { [VARIABLE_META_KEY]: variable },
    },
  ];
}

/**
 * ACP v1 `authenticate`: checks that the method's key is there now.
 * @throws `-32602` for a method that was not advertised; `-32000` (auth required) when the key is
 * still missing, with what to set.
 */
export function authenticate(host: SessionHost, requested: string): acp.AuthenticateResponse {
  const methods = authMethods(host);
  if (!methods.some((method) => method.id === requested)) {
    const known = methods.map((method) => method.id).join(", ") || "none";
    throw invalidParams(`unknown auth method ${requested}; advertised: ${known}`, {
      methodId: requested,
    });
  }
  const resolution = host.resolveModel();
  if (!resolution.ok) {
    throw modelUnavailable(resolution);
  }
  return {};
}

/**
 * The error for a model that cannot be used: ACP's auth-required `-32000` when only its key is
 * missing (the message says which variable to set), else `-32603` with the configuration problem.
 */
export function modelUnavailable(
  resolution: Extract<ModelResolution, { ok: false }>,
): acp.RequestError {
  const message = resolution.message.replace(/^turnloop: /, "");
  if (resolution.missingKey === undefined) {
    return internalError(message);
  }
  const { variable, modelId } = resolution.missingKey;
  return new acp.RequestError(
    ERROR_CODES.authRequired,
    `Authentication required: ${message} Set it where the editor starts turnloop acp, then restart the agent.`,
    { modelId, environmentVariable: variable, authMethodId: methodId(variable) },
  );
}

function methodId(variable: string): string {
  return `env:${variable}`;
}
