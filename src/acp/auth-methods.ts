/**
 * ACP v1 authentication, the part `initialize` needs: which `authMethods` to offer. It imports
 * neither the ACP SDK nor the model providers (only src/llm/api-keys.ts), so `turnloop acp` can
 * answer `initialize` before it loads them (src/acp/start.ts).
 */

import type * as acp from "@agentclientprotocol/sdk";
import {
  apiKeyVariable,
  hasProviderPrefix,
  needsApiKey,
  type ProviderName,
} from "../llm/api-keys.js";
import type { RunConfig } from "../session/run-config.js";

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
 * A config profile's model names the variable its `apiKeyEnv` gives. No model, or one that needs
 * no key (ollama, openai-compatible without a profile's `apiKeyEnv`): no methods.
 */
export function authMethods(settings: AuthenticationSettings): acp.AuthMethod[] {
  const modelId = settings.config.model?.resolved ?? settings.env.TURNLOOP_MODEL;
  if (modelId === undefined || !hasProviderPrefix(modelId)) {
    return [];
  }
  const provider = modelId.slice(0, modelId.indexOf(":")) as ProviderName;
  // A config profile's `apiKeyEnv` is where its key is read, whatever its wire needs.
  const profileVariable = settings.config.apiKeyVariable?.value;
  if (profileVariable === undefined && !needsApiKey(provider)) {
    return [];
  }
  const variable = profileVariable ?? apiKeyVariable(provider);
  return [
    {
      id: methodId(variable),
      name: `API key in ${variable}`,
      description:
        `Set ${variable} (or TURNLOOP_API_KEY) in the environment the editor starts ` +
        `turnloop acp with, then restart the agent. ${settings.config.model?.value ?? modelId} reads its key from there.`,
      _meta: { [VARIABLE_META_KEY]: variable },
    },
  ];
}

/** The id of the auth method about `variable` (`env:OPENAI_API_KEY`). */
export function methodId(variable: string): string {
  return `env:${variable}`;
}
