/**
 * Context window sizes (tokens) for ACP `usage_update.size`, which is required. The model registry
 * does not know window sizes yet, so this is a small table of well-known families with a
 * conservative default; `TURNLOOP_CONTEXT_WINDOW` overrides it (e.g. for a local model).
 */
const KNOWN_WINDOWS: ReadonlyArray<[RegExp, number]> = [
  [/claude/i, 200_000],
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-5/i, 400_000],
  [/gpt-4o|o[134](-|$)/i, 128_000],
  [/gemini/i, 1_048_576],
];

/** Used when nothing is known about the model. */
const DEFAULT_WINDOW = 128_000;

/** The context window of `modelId` (`provider:model`), in tokens. */
export function contextWindow(modelId: string, env: NodeJS.ProcessEnv): number {
  const configured = Number(env.TURNLOOP_CONTEXT_WINDOW);
  if (Number.isInteger(configured) && configured > 0) {
    return configured;
  }
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(modelId))?.[1] ?? DEFAULT_WINDOW;
}
