import { catalogueContextWindow } from "./model-catalogue.js";

/**
 * Context window sizes (tokens) by model: the one place the rest of turnloop asks. The user's
 * overrides first, then the model catalogue (llm/model-catalogue.ts), then defaults.
 */

/**
 * Ollama's smallest default context (4,096 tokens): its `/v1` endpoint ignores a per-request
 * `num_ctx`, so the server's setting is what counts.
 */
export const OLLAMA_DEFAULT_CONTEXT_WINDOW = 4_096;

/** Used when the catalogue does not know the model. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** `TURNLOOP_CONTEXT_WINDOW` of `env` when it is a positive integer (tokens). */
export function environmentContextWindow(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env.TURNLOOP_CONTEXT_WINDOW);
  return env.TURNLOOP_CONTEXT_WINDOW !== undefined && Number.isInteger(value) && value > 0
    ? value
    : undefined;
}

/** Windows the user set, most specific source first. */
export interface ContextWindowOverrides {
  /** `--context-window N` (tokens). */
  contextWindow?: number | undefined;
  /** The config files' `contextWindows`, by model id (tokens). */
  contextWindows?: Readonly<Record<string, number>> | undefined;
}

/**
 * The context window of `modelId` (`provider:model`, or `profile:model` for a config profile's
 * model with `typeId` its id on the profile's provider type, `openai-compatible:m` for `lab:m`), in
 * tokens. Precedence as for every setting (flags > environment > config files > default):
 * `--context-window`, then `TURNLOOP_CONTEXT_WINDOW`, then the config files' `contextWindows`
 * entry of `modelId`, then their entry of `typeId`, then the catalogue's window of `typeId`, then
 * {@link OLLAMA_DEFAULT_CONTEXT_WINDOW} for models on `ollama` and {@link DEFAULT_CONTEXT_WINDOW}
 * for the rest. `env` is the session host's environment; the loop passes none, since the host
 * folds `TURNLOOP_CONTEXT_WINDOW` into `overrides.contextWindow` ({@link environmentContextWindow}).
 */
export function contextWindowOf(
  modelId: string,
  overrides: ContextWindowOverrides = {},
  env: NodeJS.ProcessEnv = {},
  typeId: string = modelId,
): number {
  return (
    knownContextWindowOf(modelId, overrides, env, typeId) ??
    (/^ollama:/i.test(typeId) ? OLLAMA_DEFAULT_CONTEXT_WINDOW : DEFAULT_CONTEXT_WINDOW)
  );
}

/**
 * The context window of `modelId` as {@link contextWindowOf} finds it when the user set it or the
 * catalogue knows it (tokens); undefined when only a default would apply.
 */
export function knownContextWindowOf(
  modelId: string,
  overrides: ContextWindowOverrides = {},
  env: NodeJS.ProcessEnv = {},
  typeId: string = modelId,
): number | undefined {
  const candidates = [
    overrides.contextWindow,
    environmentContextWindow(env),
    overrides.contextWindows?.[modelId],
    overrides.contextWindows?.[typeId],
  ];
  const chosen = candidates.find(
    (value) => value !== undefined && Number.isInteger(value) && value > 0,
  );
  return chosen ?? catalogueContextWindow(typeId);
}
