/**
 * For scripts/merge-chunks.mjs: the entry files that only re-export a chunk, taken out.
 *
 * esbuild gives a lazily imported module that other chunks also import statically an entry file
 * of its own that only re-exports it from its chunk (`src/session/paths.ts` → `paths-….js`:
 * `import{…}from"./chunk-….js";import"./chunk-….js";…export{…}`): one more file for Node's loader
 * to resolve and read at each `import()` of it (issue 26). Where it can be done without loading
 * anything later or earlier than before, each `import("./<it>")` imports the file its names come
 * from instead and picks them out.
 */

import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import ts from "typescript";

/**
 * @typedef {import("esbuild").Metafile} Metafile
 */

/** The hash esbuild put in a file's name (`chunk-GF5L3WJP.js`, `main-GF5L3WJP.js` → `GF5L3WJP`). */
export function chunkHash(file) {
  return basename(file, ".js").split("-").pop() ?? "";
}

/**
 * The entry files (no source module of their own) whose names all come from one file after the
 * merge, and whose other imports that file loads anyway: what replaces `import("./<it>")`.
 * @param {Metafile} metafile @param {Map<string, string>} groupOf
 * @returns {Map<string, {file: string, picks: string}>} the entry file's name → the file to import
 *   instead and the object literal that picks its names
 */
export function stubRedirects(metafile, groupOf) {
  /** @type {Map<string, {file: string, picks: string}>} */
  const redirects = new Map();
  for (const [output, { entryPoint, inputs }] of Object.entries(metafile.outputs)) {
    if (entryPoint === undefined || !output.endsWith(".js") || Object.keys(inputs).length > 0) {
      continue;
    }
    const reexports = reexportsOf(readFileSync(output, "utf8"));
    const finalFile = (/** @type {string} */ file) => groupOf.get(file) ?? file;
    const sources = new Set([...reexports.names.values()].map(({ file }) => finalFile(file)));
    const [source] = sources;
    if (sources.size !== 1 || source === undefined) {
      continue;
    }
    // A chunk with no inputs is esbuild's runtime (helper definitions, no effects): whoever uses
    // a helper imports it.
    const folder = dirname(output);
    const loaded = loadedWith(metafile, folder, source, groupOf);
    const effects = (/** @type {string} */ file) =>
      Object.keys(metafile.outputs[join(folder, file)]?.inputs ?? {}).length > 0;
    if (![...reexports.alsoLoaded].every((file) => loaded.has(finalFile(file)) || !effects(file))) {
      continue;
    }
    const picks = [...reexports.names].map(
      ([name, { file, imported }]) =>
        `${name}: module.${groupOf.has(file) ? `${imported}$${chunkHash(file)}` : imported}`,
    );
    redirects.set(basename(output), { file: source, picks: `{ ${picks.join(", ")} }` });
  }
  return redirects;
}

/**
 * What a file made only of imports and one `export { … }` re-exports: each exported name → the
 * file (`./x.js` → `x.js`) and name it comes from, and the files it imports for their effects.
 * A file with any other statement re-exports nothing here.
 * @param {string} source
 */
function reexportsOf(source) {
  const file = ts.createSourceFile(
    "entry.js",
    source,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.JS,
  );
  /** @type {Map<string, {file: string, imported: string}>} */
  const locals = new Map();
  /** @type {Map<string, {file: string, imported: string}>} */
  const names = new Map();
  const alsoLoaded = new Set();
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const from = basename(statement.moduleSpecifier.text);
      const bindings = statement.importClause?.namedBindings;
      if (statement.importClause === undefined) {
        alsoLoaded.add(from);
      } else if (
        statement.importClause.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings)
      ) {
        for (const element of bindings.elements) {
          locals.set(element.name.text, {
            file: from,
            imported: (element.propertyName ?? element.name).text,
          });
        }
      } else {
        return { names: new Map(), alsoLoaded };
      }
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier === undefined &&
      statement.exportClause !== undefined &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) {
        const local = locals.get((element.propertyName ?? element.name).text);
        if (local === undefined) {
          return { names: new Map(), alsoLoaded };
        }
        names.set(element.name.text, local);
      }
    } else {
      return { names: new Map(), alsoLoaded };
    }
  }
  return { names, alsoLoaded };
}

/**
 * The files (after the merge: a group's name stands for its members) that loading `file` loads,
 * itself included: their static imports, followed.
 * @param {Metafile} metafile @param {string} folder the files' folder, as the metafile names it
 * @param {string} file @param {Map<string, string>} groupOf
 * @returns {Set<string>}
 */
function loadedWith(metafile, folder, file, groupOf) {
  /** @type {Map<string, string[]>} */
  const members = new Map();
  for (const [member, group] of groupOf) {
    members.set(group, [...(members.get(group) ?? []), member]);
  }
  const loaded = new Set();
  const pending = [file];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const final = groupOf.get(name) ?? name;
    if (!loaded.has(final)) {
      loaded.add(final);
      for (const member of members.get(final) ?? [final]) {
        for (const { path, kind, external } of metafile.outputs[join(folder, member)]?.imports ??
          []) {
          if (kind === "import-statement" && external !== true) {
            pending.push(basename(path));
          }
        }
      }
    }
  }
  return loaded;
}

/**
 * Replaces each `import("./<stub>")` (or `./chunks/<stub>`, from `main.js`) in `source` with its
 * {@link stubRedirects} expression.
 * @param {string} source @param {Map<string, {file: string, picks: string}>} redirects
 */
export function redirectStubImports(source, redirects) {
  return source.replace(/\bimport\("(\.\/(?:chunks\/)?)([\w.-]+)"\)/g, (whole, folder, name) => {
    const redirect = redirects.get(name);
    return redirect === undefined
      ? whole
      : `import(${JSON.stringify(folder + redirect.file)}).then((module) => (${redirect.picks}))`;
  });
}
