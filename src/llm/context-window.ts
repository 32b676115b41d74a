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

/**
 * The context window of `modelId` (`provider:model`), in tokens: `configured` when given (the
 * `--context-window` flag), else `TURNLOOP_CONTEXT_WINDOW` from `env`, else the known window.
 */
export function contextWindowOf(
  modelId: string,
  configured: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
): number {
  if (configured !== undefined && Number.isInteger(configured) && configured > 0) {
    return configured;
  }
  const fromEnvironment = Number(env.TURNLOOP_CONTEXT_WINDOW);
  if (Number.isInteger(fromEnvironment) && fromEnvironment > 0) {
    return fromEnvironment;
  }
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(modelId))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
