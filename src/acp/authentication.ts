import * as acp from "@agentclientprotocol/sdk";
import type { ModelResolution, SessionHost } from "../session/host.js";
import { authMethods, methodId } from "./auth-methods.js";
import { ERROR_CODES, internalError, invalidParams } from "./errors.js";

/**
 * ACP v1 `authenticate`: checks that the method's key is there now.
 * @throws `-32602` for a method that was not advertised; `-32000` (auth required) when the key is
 * still missing, with what to set.
 */
export function authenticate(host: SessionHost, requested: string): acp.AuthenticateResponse {
  const methods = authMethods(host);
  if (!methods.some((method) => method.id === requested)) {
    const known = methods.map((method) => method.id).join(", ") || "none";
    throw invalidParams(
      ["methodId"],
      `expected an advertised method (${known}), not ${JSON.stringify(requested)}`,
      { methodId: requested },
    );
  }
  const resolution = host.resolveModel();
  if (!resolution.ok) {
    throw modelUnavailable(resolution);
  }
  return {};
}

/**
 * The error for a model that cannot be used: ACP's auth-required `-32000` when only its key is
 * missing (the message says which variable to set); else `-32603` with the configuration problem
 * (a reopened session's model naming a removed config profile: in its words).
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
