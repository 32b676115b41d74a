/**
 * An esbuild plugin for `scripts/bundle.mjs`: the zod schemas of `@ai-sdk/openai-compatible` that
 * a request does not need are built when first used, not when the package loads or its chat model
 * is made (issue 26, figure 1a; measured in bench/notes/start25.md). Two rewrites, each checked, not
 * hoped for: a package whose source reads otherwise fails the build.
 *
 * - {@link chunkSchemaOnFirstRead}: the constructor of `OpenAICompatibleChatLanguageModel` builds
 *   its `chunkSchema` (about 100 zod schema objects) before the first request is sent. turnloop's
 *   own check of a chunk (src/llm/chat-chunk-check.ts) answers for nearly every chunk a server
 *   sends, and zod's schema only sees the rest (src/llm/sync-chunk-validation.ts), so most runs
 *   never need it. The constructor's one assignment becomes an accessor property of the same
 *   name: reading it builds the schema with the very call the constructor made (once; later reads
 *   give the same object), and assigning it stores the value given, as a plain property would.
 * - {@link moduleSchemasOnFirstUse}: the package builds the error object's schema and the chat
 *   model's provider options schema when it loads; the first is parsed only for an error
 *   response or an error object in a stream, the second only when a request carries options for
 *   the provider, which turnloop's never do. Each becomes `z.lazy(() => (<the same expression>))`,
 *   zod's own deferred schema: the expression runs the first time the schema parses a value, once,
 *   and every parse goes through the very schema the package wrote, so what is accepted and
 *   rejected, and the errors' messages, are unchanged. The package's one read of the options
 *   schema's `.shape` reads the inner schema's (`_zod.innerType`, the one zod parses with).
 */

import { readFile } from "node:fs/promises";
import ts from "typescript";

/** The package's bundled module (ES module build). */
const COMPATIBLE_PACKAGE =
  /[\\/]node_modules[\\/]@ai-sdk[\\/]openai-compatible[\\/]dist[\\/]index\.mjs$/;

/** The chat model constructor's assignment, as `@ai-sdk/openai-compatible` 2.x writes it. */
const EAGER_CHUNK_SCHEMA = `    this.chunkSchema = createOpenAICompatibleChatChunkSchema(
      errorStructure.errorSchema
    );`;

/** The same schema behind an accessor; the same number of lines, so the source map stays exact. */
const CHUNK_SCHEMA_ON_FIRST_READ = [
  "    let chunkSchema;",
  'Object.defineProperty(this, "chunkSchema", {',
  "configurable: true, enumerable: true,",
  "get: () => chunkSchema != null ? chunkSchema : chunkSchema = createOpenAICompatibleChatChunkSchema(errorStructure.errorSchema),",
  'set(value) { Object.defineProperty(this, "chunkSchema", { value, writable: true, configurable: true, enumerable: true }); }',
  "});\n\n",
].join(" ");

/**
 * The module-level schemas built on first use, each with the properties of it the package reads
 * (any other read of the name than as a value fails the build).
 */
const MODULE_SCHEMAS = new Map([
  ["openaiCompatibleErrorDataSchema", []],
  ["openaiCompatibleLanguageModelChatOptions", ["shape"]],
]);

/**
 * Rewrites the chat model's constructor (see above).
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

/**
 * Rewrites the module-level schemas of {@link MODULE_SCHEMAS} (see above).
 * @param {string} source `@ai-sdk/openai-compatible`'s `dist/index.mjs`
 * @param {string} path its path, for the errors
 * @returns {string}
 */
export function moduleSchemasOnFirstUse(source, path) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  /** @type {Array<{start: number, end: number, text: string}>} */
  const edits = [];
  const declared = new Set();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) {
      continue;
    }
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (ts.isIdentifier(name) && MODULE_SCHEMAS.has(name.text) && initializer !== undefined) {
        const zod = zodObjectNamespace(initializer);
        if (zod === undefined) {
          throw new Error(`${path}: ${name.text} is no longer a zod object as expected`);
        }
        declared.add(name.text);
        const start = initializer.getStart(file);
        const end = initializer.getEnd();
        edits.push({ start, end, text: `${zod}.lazy(() => (${source.slice(start, end)}))` });
      }
    }
  }
  if (declared.size !== MODULE_SCHEMAS.size) {
    throw new Error(`${path}: not every schema of ${[...MODULE_SCHEMAS.keys()]} was found`);
  }
  edits.push(...propertyReads(file, path));
  edits.sort((first, second) => first.start - second.start);
  let contents = "";
  let copied = 0;
  for (const { start, end, text } of edits) {
    contents += source.slice(copied, start) + text;
    copied = end;
  }
  return contents + source.slice(copied);
}

/** The namespace `z` of an initializer `z.object(…)`, or `undefined` for anything else. */
function zodObjectNamespace(initializer) {
  return ts.isCallExpression(initializer) &&
    ts.isPropertyAccessExpression(initializer.expression) &&
    initializer.expression.name.text === "object" &&
    ts.isIdentifier(initializer.expression.expression)
    ? initializer.expression.expression.text
    : undefined;
}

/**
 * The edits that make each property read of a deferred schema read its inner schema's; throws on
 * a read of a property not listed in {@link MODULE_SCHEMAS} (the lazy schema has none of the
 * object's own) and when a listed read is missing.
 */
function propertyReads(file, path) {
  const edits = [];
  const visit = (node) => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      MODULE_SCHEMAS.has(node.expression.text)
    ) {
      const name = node.expression.text;
      if (!MODULE_SCHEMAS.get(name)?.includes(node.name.text)) {
        throw new Error(`${path}: ${name}.${node.name.text} is read, which a lazy schema lacks`);
      }
      edits.push({
        start: node.expression.getEnd(),
        end: node.expression.getEnd(),
        text: "._zod.innerType",
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const expected = [...MODULE_SCHEMAS.values()].flat().length;
  if (edits.length !== expected) {
    throw new Error(
      `${path}: ${edits.length} property reads of the deferred schemas, not ${expected}`,
    );
  }
  return edits;
}

/** The plugin: applies both rewrites to the package's module. */
export const compatibleSchemasOnFirstUse = {
  name: "compatible-schemas-on-first-use",
  /** @param {import("esbuild").PluginBuild} pluginBuild */
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: COMPATIBLE_PACKAGE }, async ({ path }) => ({
      contents: moduleSchemasOnFirstUse(
        chunkSchemaOnFirstRead(await readFile(path, "utf8"), path),
        path,
      ),
      loader: "js",
    }));
  },
};
