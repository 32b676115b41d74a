import type * as acp from "@agentclientprotocol/sdk";
import type { SessionHost } from "../session/host.js";
import { isSandboxPolicy, SANDBOX_POLICIES } from "../tools/sandbox/policy.js";
import type { AcpSession } from "./acp-session.js";
import { invalidParams } from "./errors.js";
import { isModeId, MODE_OPTION_ID, MODEL_OPTION_ID, SANDBOX_OPTION_ID } from "./modes.js";

/** The requests that change an open session's settings: its mode, model and sandbox. */

/**
 * ACP v1 session-modes: `session/set_mode`; the config options follow with `config_option_update`.
 * @throws `-32602` for a mode that is not `ask`, `auto` or `autopilot`.
 */
export function applyMode(acpSession: AcpSession, modeId: string): acp.SetSessionModeResponse {
  if (!isModeId(modeId)) {
    throw invalidParams(`unknown mode ${modeId}; use ask, auto or autopilot`);
  }
  acpSession.setMode(modeId, { mode: false, config: true });
  return {};
}

/**
 * `session/set_model` (ACP's former unstable model API, still sent by clients built on it):
 * the same switch as the `model` config option, through the session host's model resolution;
 * the config options follow with `config_option_update`.
 * @throws `-32602` for a model that does not resolve.
 */
export function applyModel(acpSession: AcpSession, modelId: string): Record<string, never> {
  acpSession.setModel(modelId, true);
  return {};
}

/**
 * ACP v1 session-config-options: `mode` (also sends `current_mode_update`), `model` and
 * `sandbox` (refused, `-32602` with the reason, when the host's sandbox cannot run that policy).
 * @returns every config option with its new value.
 * @throws `-32602` for an unknown option or value.
 */
export async function applyConfigOption(
  host: SessionHost,
  acpSession: AcpSession,
  params: acp.SetSessionConfigOptionRequest,
): Promise<acp.SetSessionConfigOptionResponse> {
  const { value } = params;
  if (typeof value !== "string") {
    throw invalidParams(`option ${params.configId} takes a value id, not a boolean`);
  }
  if (params.configId === MODE_OPTION_ID) {
    if (!isModeId(value)) {
      throw invalidParams(`unknown mode ${value}; use ask, auto or autopilot`);
    }
    acpSession.setMode(value, { mode: true, config: false });
  } else if (params.configId === MODEL_OPTION_ID) {
    acpSession.setModel(value, false);
  } else if (params.configId === SANDBOX_OPTION_ID) {
    if (!isSandboxPolicy(value)) {
      throw invalidParams(`unknown sandbox policy ${value}; use ${SANDBOX_POLICIES.join(", ")}`);
    }
    const refused = await host.sandbox.refusal(value);
    if (refused !== undefined) {
      throw invalidParams(refused, { value });
    }
    acpSession.setSandbox(value);
  } else {
    throw invalidParams(`unknown config option ${params.configId}`);
  }
  return { configOptions: acpSession.configOptions() };
}
