/**
 * For `scripts/bundle.mjs`: merges each shared chunk into the entry chunk that is always loaded
 * before it, so a run reads and compiles fewer files (issue 26; figures in bench/notes/box.md).
 *
 * esbuild splits code by the set of entry points (the bundle's entry and every dynamic `import()`
 * target) that reach a module through static imports, and it does not know that one dynamic entry
 * is only ever imported after another has loaded. So a module that the full-screen face needs
 * before its first frame and that the conversation's modules (loaded after it) need too lands in a
 * chunk of its own: the face drew its input box after reading 30 files, most of them a few hundred
 * bytes.
 *
 * A shared chunk C is merged into an entry chunk D when D's static imports already reach C (loading
 * D loads C, so no run loads more code than before) and every entry that reaches C can only be
 * imported after D: every chain of dynamic imports from the bundle's entry to it passes through D
 * (D dominates it in the graph of dynamic imports). D's file then holds C's code and exports C's
 * names as well; the other files that imported C import those names from D, which by then has
 * been evaluated. A chunk whose export names clash with the others merged into the same file is
 * left as it is, and so is the bundle's entry (`main.js`).
 *
 * The files are rewritten by esbuild itself (a bundle of the chunks as they were, every other
 * import left external), which reads their source maps, so the maps still lead to the sources.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";

/**
 * @typedef {{ imports: { path: string, kind: string, external?: boolean }[], exports: string[], entryPoint?: string }} Output
 * @typedef {Record<string, Output>} Outputs esbuild's metafile outputs (paths relative to the cwd)
 */

/**
 * The files a file's code imports, statically or with `import()`, among the bundle's own outputs.
 * @param {Outputs} outputs
 * @param {string} file
 * @param {"import-statement" | "dynamic-import"} kind
 */
function importsOf(outputs, file, kind) {
  return (outputs[file]?.imports ?? [])
    .filter((entry) => entry.kind === kind && entry.external !== true && entry.path in outputs)
    .map((entry) => entry.path);
}

/**
 * The files loaded with `file`: itself and what its static imports reach.
 * @param {Outputs} outputs
 * @param {string} file
 */
function staticClosure(outputs, file, reached = new Set()) {
  if (!reached.has(file)) {
    reached.add(file);
    for (const imported of importsOf(outputs, file, "import-statement")) {
      staticClosure(outputs, imported, reached);
    }
  }
  return reached;
}

/**
 * For each entry file, the entries that every chain of dynamic imports from a root (an entry no
 * `import()` names: the bundle's entry, any other entry point of the build) passes through, itself
 * included: the classic iterative dominator sets over the graph whose edges go from an entry to the
 * targets of the `import()` calls in the files it loads.
 * @param {Outputs} outputs
 * @param {Map<string, Set<string>>} closures each entry's static closure
 */
function dominators(outputs, closures) {
  const entries = [...closures.keys()];
  /** @type {Map<string, string[]>} */
  const importers = new Map(entries.map((entry) => [entry, []]));
  for (const [entry, closure] of closures) {
    for (const file of closure) {
      for (const target of importsOf(outputs, file, "dynamic-import")) {
        importers.get(target)?.push(entry);
      }
    }
  }
  const isRoot = (entry) => (importers.get(entry) ?? []).length === 0;
  const dominating = new Map(
    entries.map((entry) => [entry, new Set(isRoot(entry) ? [entry] : entries)]),
  );
  for (let changed = true; changed; ) {
    changed = false;
    for (const entry of entries) {
      const from = importers.get(entry) ?? [];
      if (isRoot(entry)) {
        continue;
      }
      const common = new Set(
        [...(dominating.get(from[0] ?? "") ?? [])].filter((candidate) =>
          from.every((importer) => dominating.get(importer)?.has(candidate)),
        ),
      );
      common.add(entry);
      if (common.size !== dominating.get(entry)?.size) {
        dominating.set(entry, common);
        changed = true;
      }
    }
  }
  return dominating;
}

/**
 * Which entry file each shared chunk merges into (see the module comment), and which it leaves.
 * @param {Outputs} outputs
 * @param {string} main the bundle's entry file
 * @param {Set<string>} apart files never rewritten (nor merged, nor pointed elsewhere)
 * @returns {Map<string, string[]>} entry file → the chunks merged into it
 */
export function plannedMerges(outputs, main, apart = new Set()) {
  const entries = new Set([
    main,
    ...Object.keys(outputs).filter((file) => outputs[file]?.entryPoint !== undefined),
  ]);
  for (const file of Object.keys(outputs)) {
    for (const target of importsOf(outputs, file, "dynamic-import")) {
      entries.add(target);
    }
  }
  const closures = new Map([...entries].map((entry) => [entry, staticClosure(outputs, entry)]));
  const dominating = dominators(outputs, closures);
  /** @type {Map<string, string[]>} */
  const merges = new Map();
  /** @type {Map<string, Set<string>>} */
  const names = new Map();
  for (const chunk of Object.keys(outputs)
    .filter((file) => file.endsWith(".js"))
    .sort()) {
    const importedApart = [...apart].some((file) =>
      importsOf(outputs, file, "import-statement").includes(chunk),
    );
    if (entries.has(chunk) || apart.has(chunk) || importedApart) {
      continue;
    }
    const reaching = [...entries].filter((entry) => closures.get(entry)?.has(chunk));
    const into = reaching
      .filter((entry) => entry !== main && !apart.has(entry))
      .filter((entry) => reaching.every((other) => dominating.get(other)?.has(entry)))
      .sort((a, b) => (dominating.get(b)?.size ?? 0) - (dominating.get(a)?.size ?? 0))[0];
    if (into === undefined) {
      continue;
    }
    const taken = names.get(into) ?? new Set(outputs[into]?.exports ?? []);
    const exported = outputs[chunk]?.exports ?? [];
    if (exported.includes("default") || exported.some((name) => taken.has(name))) {
      continue;
    }
    for (const name of exported) {
      taken.add(name);
    }
    names.set(into, taken);
    merges.set(into, [...(merges.get(into) ?? []), chunk]);
  }
  return withoutCycles(outputs, merges, closures);
}

/**
 * Drops a chunk from its merge when a file that D loads and that stays apart imports it: that file
 * would import D's names while D is still loading it, before D's code (C's included) has run.
 * @param {Outputs} outputs
 * @param {Map<string, string[]>} merges
 * @param {Map<string, Set<string>>} closures
 */
function withoutCycles(outputs, merges, closures) {
  for (const [into, members] of merges) {
    let kept = members;
    for (let dropped = true; dropped; ) {
      const group = new Set([into, ...kept]);
      const safe = kept.filter((member) =>
        [...(closures.get(into) ?? [])].every(
          (file) =>
            group.has(file) || !importsOf(outputs, file, "import-statement").includes(member),
        ),
      );
      dropped = safe.length !== kept.length;
      kept = safe;
    }
    merges.set(into, kept);
  }
  return new Map([...merges].filter(([, members]) => members.length > 0));
}

/**
 * Rewrites `file` with esbuild: the chunks in `members` bundled into it (their names exported
 * too), imports of a chunk merged elsewhere pointed at the file it went into, every other import
 * left as it was.
 * @param {string} file
 * @param {string[]} members chunks merged into `file` (none for a file that only imports them)
 * @param {Map<string, string>} mergedInto chunk → the file it was merged into
 * @param {boolean} exportsDefault whether `file` has a default export to keep
 */
async function rewrite(file, members, mergedInto, exportsDefault) {
  const directory = dirname(resolve(file));
  const specifier = (path) => `./${relative(directory, resolve(path))}`;
  const inside = new Set([file, ...members].map((path) => resolve(path)));
  const contents = [file, ...members]
    .map((path) => `export * from ${JSON.stringify(specifier(path))};`)
    .concat(exportsDefault ? [`export { default } from ${JSON.stringify(specifier(file))};`] : [])
    .join("\n");
  const result = await build({
    stdin: { contents, resolveDir: directory, sourcefile: "merged-chunk.js" },
    outfile: file,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    minifyWhitespace: true,
    sourcemap: true,
    write: false,
    logLevel: "warning",
    plugins: [
      {
        name: "merge-dominated-chunks",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /.*/ }, ({ path, resolveDir, importer }) => {
            const absolute = path.startsWith(".") ? resolve(resolveDir, path) : undefined;
            if (importer === "<stdin>" || (absolute !== undefined && inside.has(absolute))) {
              return { path: absolute ?? path };
            }
            const target = absolute === undefined ? undefined : mergedInto.get(absolute);
            return { path: target === undefined ? path : specifier(target), external: true };
          });
        },
      },
    ],
  });
  for (const output of result.outputFiles) {
    writeFileSync(output.path, output.text);
  }
}

/**
 * Merges the chunks of an esbuild build (see the module comment) and updates `inputs`, the map of
 * each output file (relative to `directory`) to the source modules bundled into it.
 * @param {Outputs} outputs the build's metafile outputs
 * @param {string} directory the output folder (`dist/cli`), relative to the cwd
 * @param {Record<string, string[]>} inputs
 * @param {string} banner the line that gives a file `require` (scripts/require-where-used.mjs):
 *   files that start with it are left as they are, for esbuild would rename that `require`
 * @returns {Promise<Map<string, string[]>>} the merges made (relative to the cwd)
 */
export async function mergeDominatedChunks(outputs, directory, inputs, banner) {
  const apart = new Set(
    Object.keys(outputs).filter(
      (file) => file.endsWith(".js") && readFileSync(file, "utf8").startsWith(banner),
    ),
  );
  const merges = plannedMerges(outputs, join(directory, "main.js"), apart);
  /** @type {Map<string, string>} */
  const mergedInto = new Map();
  for (const [into, members] of merges) {
    for (const member of members) {
      mergedInto.set(resolve(member), into);
    }
  }
  const importers = Object.keys(outputs).filter(
    (file) =>
      !merges.has(file) &&
      !mergedInto.has(resolve(file)) &&
      importsOf(outputs, file, "import-statement").some((path) => mergedInto.has(resolve(path))),
  );
  for (const file of [...merges.keys(), ...importers]) {
    const exportsDefault = outputs[file]?.exports.includes("default") ?? false;
    await rewrite(file, merges.get(file) ?? [], mergedInto, exportsDefault);
  }
  for (const [into, members] of merges) {
    const key = relative(directory, into);
    for (const member of members) {
      const memberKey = relative(directory, member);
      inputs[key] = [...(inputs[key] ?? []), ...(inputs[memberKey] ?? [])];
      delete inputs[memberKey];
      rmSync(member);
      rmSync(`${member}.map`, { force: true });
    }
  }
  return merges;
}
