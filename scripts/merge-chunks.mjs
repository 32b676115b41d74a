/**
 * For `scripts/bundle.mjs`: fewer files on the paths a run takes (issue 26, figures 1a, 7a, 7c).
 *
 * esbuild splits the bundle into one chunk per set of lazy entry points (each dynamic `import()`)
 * that share code, and it has no manual chunks: `turnloop -p` read 53 files before its first
 * model request and `turnloop acp` 29 before answering `initialize`. Node's loader does the same
 * work for each file (resolve, open, stat, read, its package.json scope, a URL and a path or two),
 * and on the ACP path that work made Node's own URL-to-path functions hot enough to start V8's
 * optimising compiler, 3.3 MiB of the agent's peak memory (bench/notes/targets.md, "ACP face and
 * `-p`"; its "start lane … session 8" section has this step's figures).
 *
 * This step merges files that the same runs load. A *phase* is the set of source entry points one
 * kind of run imports up to a point (`-p` up to its first request, `acp` up to its `initialize`
 * answer …; scripts/bundle.mjs lists them); the files a phase loads are the static-import closure
 * of its entries' output files. Shared chunks, and lazy entry files (`import()` targets) that only
 * other chunks import, that are loaded by exactly the same phases become one file: no phase loads
 * anything it did not load before (within a phase, a merged entry's code may load a little before
 * its `import()` runs). A file no phase loads stays as it is, and so does `main.js` and what it
 * imports. Merged files cannot import each other in a cycle: a static import means every phase
 * that loads the importer loads the imported file too, so the importer's phases are a subset of
 * the imported one's, and equal sets are one file. The entry files that only re-export a chunk
 * are taken out as well (scripts/reexport-entries.mjs).
 *
 * The merge is a second esbuild pass over the first pass's output: each group becomes one file
 * exporting each member's exports under `<name>$<member's hash>`; every file that imported a
 * member imports that name from the group's file instead (rewritten from the syntax tree, then
 * rebuilt by esbuild so its source map still leads back to the sources), and each `import()` of
 * a merged entry imports the group's file and picks its names out.
 */

import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { build } from "esbuild";
import ts from "typescript";
import { chunkHash, redirectStubImports, stubRedirects } from "./reexport-entries.mjs";

/**
 * @typedef {import("esbuild").Metafile} Metafile
 * @typedef {Record<string, string[]>} Phases phase name → source entry points (as esbuild's
 *   metafile names them, relative to the working directory)
 */

/**
 * The files to merge: groups of output paths (as the metafile names them), each loaded by the
 * same phases, two or more a group.
 * @param {Metafile} metafile @param {Phases} phases
 * @returns {string[][]}
 */
export function chunkGroups(metafile, phases) {
  const entryOutputs = new Map();
  for (const [output, { entryPoint }] of Object.entries(metafile.outputs)) {
    if (entryPoint !== undefined && output.endsWith(".js")) {
      entryOutputs.set(entryPoint, output);
    }
  }
  /** @type {Map<string, string[]>} */
  const phasesOfOutput = new Map();
  for (const [phase, entries] of Object.entries(phases)) {
    const pending = entries.map((entry) => {
      const output = [...entryOutputs].find(
        ([entryPoint]) => entryPoint === entry || entryPoint.endsWith(`/${entry}`),
      )?.[1];
      if (output === undefined) {
        throw new Error(`merge-chunks: phase ${phase}: no output file has the entry ${entry}`);
      }
      return output;
    });
    const loaded = new Set();
    for (let output = pending.pop(); output !== undefined; output = pending.pop()) {
      if (loaded.has(output)) {
        continue;
      }
      loaded.add(output);
      for (const { path, kind, external } of metafile.outputs[output]?.imports ?? []) {
        if (kind === "import-statement" && external !== true) {
          pending.push(path);
        }
      }
    }
    for (const output of loaded) {
      phasesOfOutput.set(output, [...(phasesOfOutput.get(output) ?? []), phase]);
    }
  }
  const mergeable = mergeableFiles(metafile);
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  for (const [output, outputPhases] of phasesOfOutput) {
    if (mergeable.has(output)) {
      const key = outputPhases.join(",");
      groups.set(key, [...(groups.get(key) ?? []), output]);
    }
  }
  return [...groups.values()].filter((group) => group.length > 1).map((group) => group.sort());
}

/**
 * The files that can be merged: the shared chunks with code of our sources (not esbuild's runtime
 * helpers alone, `__require` and the CommonJS wrappers: that chunk names `require`, and in a group
 * its banner, scripts/require-where-used.mjs, was renamed, so the file lost its code cache and
 * `acp` loaded `node:module` before answering `initialize`), and the entry files with code of their own
 * (each an `import()` target) that only other chunks import, and only by `import()`; not the
 * command's own entry (`main.js`, which keeps its first line and its source map) nor the entry
 * files that only re-export a chunk ({@link stubRedirects} takes those out).
 * @param {Metafile} metafile
 * @returns {Set<string>}
 */
function mergeableFiles(metafile) {
  const importedStatically = new Set();
  const importedFromOutside = new Set();
  for (const [output, { imports }] of Object.entries(metafile.outputs)) {
    for (const { path, kind } of imports) {
      if (kind === "import-statement") {
        importedStatically.add(path);
      }
      if (!basename(dirname(output)).startsWith("chunks")) {
        importedFromOutside.add(path);
      }
    }
  }
  return new Set(
    Object.entries(metafile.outputs)
      .filter(
        ([output, { entryPoint, inputs }]) =>
          output.endsWith(".js") &&
          basename(dirname(output)) === "chunks" &&
          (entryPoint === undefined
            ? basename(output).startsWith("chunk-") && Object.keys(inputs).length > 0
            : Object.keys(inputs).length > 0 &&
              !importedStatically.has(output) &&
              !importedFromOutside.has(output)),
      )
      .map(([output]) => output),
  );
}

/**
 * Rewrites `source`'s imports and re-exports of merged chunks to their group file, each name
 * `n` becoming `n$<hash>`; `groupOf` maps a merged chunk's file name to its group's. Imports of
 * the files named in `bundledWith` (merged into the same file as `source`) are left as they are.
 * @param {string} source @param {Map<string, string>} groupOf @param {Set<string>} bundledWith
 * @returns {string}
 */
export function redirectImports(source, groupOf, bundledWith = new Set()) {
  const file = ts.createSourceFile(
    "chunk.js",
    source,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.JS,
  );
  /** @type {Array<{start: number, end: number, text: string}>} */
  const edits = [];
  for (const statement of file.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (
      !(isImport || ts.isExportDeclaration(statement)) ||
      statement.moduleSpecifier === undefined
    ) {
      continue;
    }
    const specifier = /** @type {ts.StringLiteral} */ (statement.moduleSpecifier).text;
    const group = groupOf.get(basename(specifier));
    if (
      !specifier.startsWith("./") ||
      group === undefined ||
      bundledWith.has(basename(specifier))
    ) {
      continue;
    }
    const hash = chunkHash(specifier);
    const named = isImport ? statement.importClause?.namedBindings : statement.exportClause;
    if (isImport && statement.importClause?.name !== undefined) {
      throw new Error(`merge-chunks: a default import of ${specifier}`);
    }
    if (named !== undefined && !(ts.isNamedImports(named) || ts.isNamedExports(named))) {
      throw new Error(`merge-chunks: a namespace import or export of ${specifier}`);
    }
    if (!isImport && named === undefined) {
      throw new Error(`merge-chunks: export * from ${specifier}`);
    }
    const names = (named?.elements ?? []).map(
      (element) => `${(element.propertyName ?? element.name).text}$${hash} as ${element.name.text}`,
    );
    const keyword = isImport ? "import" : "export";
    edits.push({
      start: statement.getStart(file),
      end: statement.end,
      text:
        named === undefined
          ? `import ${JSON.stringify(`./${group}`)};`
          : `${keyword} { ${names.join(", ")} } from ${JSON.stringify(`./${group}`)};`,
    });
  }
  let result = source;
  for (const { start, end, text } of edits.reverse()) {
    result = result.slice(0, start) + text + result.slice(end);
  }
  return result;
}

/**
 * Merges the groups of {@link chunkGroups} (in the first pass's `outdir`, where the metafile says),
 * takes out the entry files that only re-export a chunk ({@link stubRedirects}) and rebuilds each
 * file that imported either.
 * @param {Metafile} metafile @param {Phases} phases
 * @returns {Promise<{merged: Map<string, string[]>, removed: string[]}>} each merged file → its
 *   members, and the re-exporting entry files taken out (paths as the metafile names them)
 */
export async function mergeChunks(metafile, phases) {
  /** @type {Map<string, string[]>} */
  const merged = new Map();
  /** @type {Map<string, string>} */
  const groupOf = new Map();
  for (const members of chunkGroups(metafile, phases)) {
    const hash = createHash("sha256").update(members.join("\n")).digest("hex").slice(0, 8);
    const file = join(dirname(members[0] ?? ""), `shared-${hash.toUpperCase()}.js`);
    merged.set(file, members);
    for (const member of members) {
      groupOf.set(basename(member), basename(file));
    }
  }
  const redirects = stubRedirects(metafile, groupOf);
  for (const [output, { entryPoint, exports }] of Object.entries(metafile.outputs)) {
    const group = groupOf.get(basename(output));
    if (entryPoint !== undefined && group !== undefined) {
      const hash = chunkHash(output);
      const picks = exports.map((name) => `${name}: module.${name}$${hash}`);
      redirects.set(basename(output), { file: group, picks: `{ ${picks.join(", ")} }` });
    }
  }
  const rewrite = (/** @type {string} */ source, /** @type {Set<string>} */ bundledWith) =>
    redirectStubImports(redirectImports(source, groupOf, bundledWith), redirects);
  for (const [file, members] of merged) {
    await rebuild(
      file,
      groupEntry(metafile, members),
      new Set(members.map((m) => basename(m))),
      rewrite,
    );
  }
  const importers = Object.entries(metafile.outputs).filter(
    ([output, { imports }]) =>
      output.endsWith(".js") &&
      !groupOf.has(basename(output)) &&
      !redirects.has(basename(output)) &&
      imports.some(
        ({ path, kind }) =>
          (kind === "import-statement" && groupOf.has(basename(path))) ||
          (kind === "dynamic-import" && redirects.has(basename(path))),
      ),
  );
  for (const [file] of importers) {
    await rebuild(file, undefined, new Set([basename(file)]), rewrite);
  }
  const removed = Object.keys(metafile.outputs).filter(
    (output) => redirects.has(basename(output)) && !groupOf.has(basename(output)),
  );
  for (const file of [...[...merged.values()].flat(), ...removed]) {
    rmSync(file);
    rmSync(`${file}.map`, { force: true });
  }
  return { merged, removed };
}

/**
 * The source of a group's file: each member's exports, named `<name>$<member's hash>`.
 * @param {Metafile} metafile @param {string[]} members
 */
function groupEntry(metafile, members) {
  return members
    .map((member) => {
      const hash = chunkHash(member);
      const names = (metafile.outputs[member]?.exports ?? []).map(
        (name) => `${name} as ${name}$${hash}`,
      );
      return `export { ${names.join(", ")} } from ${JSON.stringify(`./${basename(member)}`)};`;
    })
    .join("\n");
}

/**
 * Builds `file` (a path under the first pass's `outdir`) from the first pass's files named in
 * `members`, bundled together and each `rewrite`n first, with `entry` as the source that exports
 * them (a group's) or, without it, from `file` itself; every other file they import stays an import.
 * @param {string} file @param {string | undefined} entry @param {Set<string>} members
 * @param {(source: string, members: Set<string>) => string} rewrite
 */
async function rebuild(file, entry, members, rewrite) {
  const directory = dirname(file);
  const result = await build({
    ...(entry === undefined
      ? { entryPoints: [file] }
      : { stdin: { contents: entry, resolveDir: directory, sourcefile: basename(file) } }),
    outfile: file,
    allowOverwrite: true,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    sourcemap: true,
    minifyWhitespace: true,
    treeShaking: false,
    write: false,
    logLevel: "warning",
    plugins: [
      {
        name: "merge-chunks",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /.*/ }, ({ path, resolveDir, kind }) => {
            if (kind === "entry-point") {
              return undefined;
            }
            return members.has(basename(path)) &&
              path.startsWith("./") &&
              kind === "import-statement"
              ? { path: join(resolveDir, path) }
              : { path, external: true };
          });
          pluginBuild.onLoad({ filter: /\.js$/ }, ({ path }) => ({
            contents: rewrite(readFileSync(path, "utf8"), members),
            loader: "js",
            resolveDir: dirname(path),
          }));
        },
      },
    ],
  });
  for (const output of result.outputFiles) {
    writeFileSync(output.path, output.contents);
  }
}
