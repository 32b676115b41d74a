import type { AskPermission } from "../agent/permission-gate.js";
import { parseRules } from "../agent/permission-gate.js";
import type { ModelConfiguration, ProviderTuning } from "../llm/models.js";
import type { SessionOptions } from "../session/agent-settings.js";
import type { FaceOptions } from "./arguments.js";

/**
 * The {@link SessionOptions} every face derives from its command-line options and environment.
 * @throws Error naming a malformed `--allow-tool` / `--deny-tool` rule.
 */
export function sessionOptionsFrom(
  options: FaceOptions,
  model: ModelConfiguration,
  env: NodeJS.ProcessEnv,
  asking: { ask?: AskPermission; noAskReason?: string } = {},
): SessionOptions {
  return { ...baseSessionOptions(options, env), model, autopilot: options.autopilot, ...asking };
}

/**
 * The part of {@link SessionOptions} that does not depend on the model or on how the face asks:
 * limits, permission rules, folders, provider tuning.
 * @throws Error naming a malformed `--allow-tool` / `--deny-tool` rule.
 */
export function baseSessionOptions(
  options: FaceOptions,
  env: NodeJS.ProcessEnv,
): Omit<SessionOptions, "model" | "provider" | "autopilot" | "ask"> {
  return {
    tuning: providerTuning(env),
    maxTurns: options.maxTurns,
    maxAutopilotContinues: options.maxAutopilotContinues,
    allowAllTools: options.allowAllTools,
    allow: parseRules(options.allowTools),
    deny: parseRules(options.denyTools),
    folders: options.addDirs,
  };
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
