/**
 * Context window sizes (tokens) by model. The one place the rest of turnloop asks; it will read
 * the model catalogue once `src/llm/` has one. Until then: a small table of well-known families,
 * Ollama's smallest default context (4,096 tokens: its `/v1` endpoint ignores a per-request
 * `num_ctx`, so the server's setting is what counts), and a conservative default.
 */
const KNOWN_WINDOWS: ReadonlyArray<[RegExp, number]> = [
  [/^ollama:/i, 4_096],
  [/claude/i, 200_000],
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-5/i, 400_000],
  [/gpt-4o|o[134](-|$)/i, 128_000],
  [/gemini/i, 1_048_576],
];

/** Used when nothing is known about the model. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Windows the user set, most specific source first. */
export interface ContextWindowOverrides {
  /** `--context-window N` (tokens). */
  contextWindow?: number | undefined;
  /** The config files' `contextWindows`, by model id (tokens). */
  contextWindows?: Readonly<Record<string, number>> | undefined;
}

/**
 * The context window of `modelId` (`provider:model`), in tokens. Precedence as for every
 * setting (flags > environment > config files > default): `--context-window`, then
 * `TURNLOOP_CONTEXT_WINDOW`, then the config files' `contextWindows[modelId]`, then the known
 * window.
 */
export function contextWindowOf(
  modelId: string,
  overrides: ContextWindowOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
): number {
  const fromEnvironment = Number(env.TURNLOOP_CONTEXT_WINDOW);
  const candidates = [
    overrides.contextWindow,
    env.TURNLOOP_CONTEXT_WINDOW === undefined ? undefined : fromEnvironment,
    overrides.contextWindows?.[modelId],
  ];
  const chosen = candidates.find(
    (value) => value !== undefined && Number.isInteger(value) && value > 0,
  );
  return (
    chosen ??
    KNOWN_WINDOWS.find(([pattern]) => pattern.test(modelId))?.[1] ??
    DEFAULT_CONTEXT_WINDOW
  );
}
