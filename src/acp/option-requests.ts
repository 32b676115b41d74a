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
export async function applyMode(
  acpSession: AcpSession,
  modeId: string,
): Promise<acp.SetSessionModeResponse> {
  if (!isModeId(modeId)) {
    throw invalidParams(
      ["modeId"],
      `expected ask, auto or autopilot, not ${JSON.stringify(modeId)}`,
    );
  }
  await acpSession.probeSandbox(modeId);
  acpSession.setMode(modeId, { mode: false, config: true });
  acpSession.warnSandboxOnce();
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
    throw invalidParams(
      ["value"],
      `expected a value id of option ${params.configId}, not a boolean`,
    );
  }
  if (params.configId === MODE_OPTION_ID) {
    if (!isModeId(value)) {
      throw invalidParams(
        ["value"],
        `expected ask, auto or autopilot, not ${JSON.stringify(value)}`,
      );
    }
    await acpSession.probeSandbox(value);
    acpSession.setMode(value, { mode: true, config: false });
  } else if (params.configId === MODEL_OPTION_ID) {
    acpSession.setModel(value, false);
  } else if (params.configId === SANDBOX_OPTION_ID) {
    if (!isSandboxPolicy(value)) {
      throw invalidParams(
        ["value"],
        `expected one of ${SANDBOX_POLICIES.join(", ")}, not ${JSON.stringify(value)}`,
      );
    }
    const refused = await host.sandbox.refusal(value);
    if (refused !== undefined) {
      throw invalidParams(["value"], refused, { value });
    }
    acpSession.setSandbox(value);
  } else {
    const known = acpSession.configOptions().map((option) => option.id);
    throw invalidParams(
      ["configId"],
      `expected one of ${known.join(", ")}, not ${JSON.stringify(params.configId)}`,
    );
  }
  acpSession.warnSandboxOnce();
  return { configOptions: acpSession.configOptions() };
}
