/**
 * The AI SDK's provider packages (`@ai-sdk/openai-compatible`, `@ai-sdk/openai`,
 * `@ai-sdk/anthropic`) as turnloop's bundle runs them (scripts/bundle.mjs), so that the in-process
 * benchmarks (bench/in-process/bundled-packages.mjs), which run `tsc`'s `dist/` against the
 * packages in `node_modules`, load the same: their `TransformStream` is turnloop's
 * `ValueTransform` (src/llm/value-transform.ts), a `TransformStream` made only when used as one.
 * Each provider's `doStream` pipes the parsed events of a response (a `LockKeepingStream`,
 * src/llm/lock-keeping-stream.ts) through one; that stream then runs the transformer on its values
 * itself, without the web stream stage between them and their reader (bench/notes/turn40.md).
 * A provider that defines a `TransformStream` of its own, or no longer makes one, fails the build.
 */

/** The provider packages' modules that get {@link valueTransformAsTransformStream}. */
export const PROVIDER_PACKAGES =
  /[\\/]node_modules[\\/]@ai-sdk[\\/](openai-compatible|openai|anthropic)[\\/]dist[\\/]index\.mjs$/;

/**
 * @param {string} source a provider package's `dist/index.mjs`
 * @param {string} path its path, for the errors
 * @param {string} valueTransform what the import names: src/llm/value-transform.ts or its
 *   `dist/` output
 * @returns {string}
 */
export function valueTransformAsTransformStream(source, path, valueTransform) {
  if (
    !/\bnew TransformStream\(/.test(source) ||
    /\b(class|const|let|var|function) TransformStream\b/.test(source) ||
    /\bimport\b[^;]*\bTransformStream\b/.test(source)
  ) {
    throw new Error(`${path}: the provider no longer uses the global TransformStream as expected`);
  }
  return `import { ValueTransform as TransformStream } from ${JSON.stringify(valueTransform)};\n${source}`;
}
