/**
 * An esbuild plugin for `scripts/bundle.mjs`: the ACP SDK's zod schemas are built on first use
 * instead of at import (issue 26).
 *
 * `@agentclientprotocol/sdk` validates every message it receives with the zod schemas generated
 * into `dist/v1/schema/zod.gen.js` (178 of them) and `guards.gen.js`, all built when the module is
 * imported: about 6 MiB of resident memory in `turnloop acp` before `initialize` is answered,
 * although an agent parses only the requests a client sends it (`initialize`, `session/new`,
 * `session/prompt` …) and never the `session/update` notifications it writes.
 *
 * This plugin rewrites each top-level `const zName = <schema expression>` of those generated files
 * into `const zName = z.lazy(() => (<schema expression>))`. `z.lazy` is zod's own deferred schema:
 * the expression runs the first time the schema (or a schema holding it) parses a value, once, and
 * every parse goes through the very schema the SDK generated, so validation, its defaults and its
 * error messages are unchanged. The rewrite is checked, not hoped for: a file that does not import
 * `z` from `zod/v4`, or in which no schema was found, fails the build.
 */

import { readFile } from "node:fs/promises";
import ts from "typescript";

/** The generated schema files of the ACP SDK (any protocol version, stable or unstable). */
const GENERATED_SCHEMAS =
  /[\\/]node_modules[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*[\\/]schema[\\/](zod|guards)\.gen\.js$/;

/**
 * Rewrites the source of one generated schema file (see above).
 * @param {string} source the file's JavaScript
 * @param {string} path the file's path, for error messages
 * @returns {{contents: string, schemas: number}} the rewritten source and how many schemas it defers
 */
export function deferSchemas(source, path) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const importsZod = file.statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text === "zod/v4" &&
      statement.importClause?.namedBindings !== undefined &&
      ts.isNamespaceImport(statement.importClause.namedBindings) &&
      statement.importClause.namedBindings.name.text === "z",
  );
  if (!importsZod) {
    throw new Error(`${path}: expected \`import * as z from "zod/v4"\`; the ACP SDK changed`);
  }
  /** @type {Array<{start: number, end: number}>} */
  const initializers = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) {
      continue;
    }
    for (const declaration of statement.declarationList.declarations) {
      if (
        ts.isIdentifier(declaration.name) &&
        /^z[A-Z]/.test(declaration.name.text) &&
        declaration.initializer !== undefined
      ) {
        initializers.push({
          start: declaration.initializer.getStart(file),
          end: declaration.initializer.getEnd(),
        });
      }
    }
  }
  if (initializers.length === 0) {
    throw new Error(`${path}: no schema found to build on first use; the ACP SDK changed`);
  }
  let contents = "";
  let copied = 0;
  for (const { start, end } of initializers) {
    contents += `${source.slice(copied, start)}z.lazy(() => (${source.slice(start, end)}))`;
    copied = end;
  }
  contents += source.slice(copied);
  return { contents, schemas: initializers.length };
}

/** The plugin: applies {@link deferSchemas} to the ACP SDK's generated schema files. */
export const acpSchemasOnFirstUse = {
  name: "acp-schemas-on-first-use",
  /** @param {import("esbuild").PluginBuild} pluginBuild */
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: GENERATED_SCHEMAS }, async ({ path }) => ({
      contents: deferSchemas(await readFile(path, "utf8"), path).contents,
      loader: "js",
    }));
  },
};
