/**
 * An esbuild plugin for `scripts/bundle.mjs`: the chunk schema of `@ai-sdk/openai-compatible`'s
 * chat model is built the first time something reads it, not in the model's constructor (issue
 * 26, figure 1a; measured in bench/notes/start25.md).
 *
 * The constructor of `OpenAICompatibleChatLanguageModel` builds its `chunkSchema` (about 100 zod
 * schema objects) before the first request is sent. turnloop's own check of a chunk
 * (src/llm/chat-chunk-check.ts) answers for nearly every chunk a server sends, and zod's schema
 * only sees the rest (src/llm/sync-chunk-validation.ts), so in most runs nothing needs it at all.
 *
 * This plugin rewrites the constructor's one assignment into an accessor property of the same name:
 * reading it builds the schema with the very call the constructor made (once; later reads give the
 * same object) and assigning it stores the value given, as a plain property would. Whoever reads
 * `model.chunkSchema` (the AI SDK's `doStream`, a test) gets what the constructor would have
 * made. The rewrite is checked, not hoped for: a package whose constructor reads otherwise fails the
 * build.
 */

import { readFile } from "node:fs/promises";

/** The package's bundled module (ES module build). */
const COMPATIBLE_PACKAGE =
  /[\\/]node_modules[\\/]@ai-sdk[\\/]openai-compatible[\\/]dist[\\/]index\.mjs$/;

/** The chat model constructor's assignment, as `@ai-sdk/openai-compatible` 2.x writes it. */
const EAGER_CHUNK_SCHEMA = `    this.chunkSchema = createOpenAICompatibleChatChunkSchema(
      errorStructure.errorSchema
    );`;

/** The same schema behind an accessor; one line, so the source map's later lines stay exact. */
const CHUNK_SCHEMA_ON_FIRST_READ = [
  "    let chunkSchema;",
  'Object.defineProperty(this, "chunkSchema", {',
  "configurable: true, enumerable: true,",
  "get: () => chunkSchema != null ? chunkSchema : chunkSchema = createOpenAICompatibleChatChunkSchema(errorStructure.errorSchema),",
  'set(value) { Object.defineProperty(this, "chunkSchema", { value, writable: true, configurable: true, enumerable: true }); }',
  "});\n\n",
].join(" ");

/**
 * Rewrites the package's source (see above).
 * @param {string} source `@ai-sdk/openai-compatible`'s `dist/index.mjs`
 * @param {string} path its path, for the error
 * @returns {string}
 */
export function chunkSchemaOnFirstRead(source, path) {
  if (source.split(EAGER_CHUNK_SCHEMA).length !== 2) {
    throw new Error(
      `${path}: the OpenAI-compatible chat model no longer builds its chunk schema as expected`,
    );
  }
  return source.replace(EAGER_CHUNK_SCHEMA, CHUNK_SCHEMA_ON_FIRST_READ);
}

/** The plugin: applies {@link chunkSchemaOnFirstRead} to the package's module. */
export const compatibleChunkSchemaOnFirstRead = {
  name: "compatible-chunk-schema-on-first-read",
  /** @param {import("esbuild").PluginBuild} pluginBuild */
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: COMPATIBLE_PACKAGE }, async ({ path }) => ({
      contents: chunkSchemaOnFirstRead(await readFile(path, "utf8"), path),
      loader: "js",
    }));
  },
};
