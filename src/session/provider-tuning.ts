import type { ProviderTuning } from "../llm/models.js";

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
