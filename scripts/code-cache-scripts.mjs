/**
 * For `scripts/bundle.mjs`: the bundle again as scripts that V8 can keep compiled between runs
 * (issue 26, figures 1a, 7a; before/after in bench/notes/cache.md).
 *
 * Node 20 keeps no compiled code of ES modules between runs (`module.enableCompileCache` came in
 * Node 22.1), but V8's code cache works for a `vm.Script`: src/cli/code-cache.cts runs these
 * scripts and keeps their code under the user's turnloop home. Each ES module file of the bundle
 * (`dist/cli/main.js`, `dist/cli/chunks/*.js`) becomes one script at the same place under
 * `dist/cli/scripts/`, loaded when its ES module would have been, so every run still reads only
 * the files it needs (scripts/merge-chunks.mjs):
 *
 * - esbuild rewrites its imports and exports as CommonJS (`require`, `module.exports`), and each
 *   `import()` as a `require` inside a promise;
 * - the file is one function expression, `(function (exports, require, module, __filename,
 *   __dirname, __turnloopMeta) {…})`, which the script evaluates to and the loader calls, as
 *   Node's own CommonJS loader wraps a file (without a second copy of its text in memory);
 * - `import.meta.url` becomes `__turnloopMeta.url`, and the `createRequire` line of the chunks that
 *   name `require` (scripts/require-where-used.mjs) goes: the loader gives each script a `require`;
 * - each script's `module.exports` is the object its exported names were defined on, not a copy
 *   of it ({@link exportsItself});
 * - esbuild's helper that defines those names, and the names of the namespaces inside a script
 *   (zod's `z`, `core`, …), is the loader's ({@link exportsThroughLoader});
 * - esbuild writes other characters than ASCII as escapes (`charset: "ascii"`) where the meaning
 *   stays (not in a regular expression or a `String.raw` text: the session viewer's page scripts),
 *   since V8 keeps a script holding any other character at two bytes a character.
 *
 * The scripts' content hash, the key of their cached code, replaces the placeholder in
 * `dist/cli/code-cache.cjs`; the build fails if the placeholder is missing.
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

/** What src/cli/code-cache.cts says its build hash is until this step replaces it. */
export const BUILD_HASH_PLACEHOLDER = "unbuilt-00000000";

const WRAPPER_START =
  "(function (exports, require, module, __filename, __dirname, __turnloopMeta) {";

/**
 * Writes `<cliDirectory>/scripts/` from `main.js` and `chunks/*.js`, and the build hash into
 * `code-cache.cjs`.
 * @param {string} cliDirectory `dist/cli`
 * @param {string} requireBanner The line scripts/bundle.mjs put at the top of chunks that use `require`.
 * @returns {Promise<string>} the build hash (16 hex digits)
 */
export async function writeCodeCacheScripts(cliDirectory, requireBanner) {
  const output = join(cliDirectory, "scripts");
  rmSync(output, { recursive: true, force: true });
  const entryPoints = [
    join(cliDirectory, "main.js"),
    ...readdirSync(join(cliDirectory, "chunks"))
      .filter((file) => file.endsWith(".js"))
      .map((file) => join(cliDirectory, "chunks", file)),
  ];
  const result = await build({
    entryPoints,
    outbase: cliDirectory,
    outdir: output,
    bundle: false,
    format: "cjs",
    platform: "node",
    target: "node20.19",
    supported: { "dynamic-import": false },
    charset: "ascii",
    sourcemap: true,
    minifyWhitespace: true,
    define: { "import.meta.url": "__turnloopMeta.url" },
    banner: { js: WRAPPER_START },
    footer: { js: "})" },
    metafile: true,
    plugins: [withoutRequireBanner(requireBanner)],
    logLevel: "warning",
  });
  const hash = createHash("sha256");
  for (const file of Object.keys(result.metafile.outputs).sort()) {
    if (!file.endsWith(".js")) {
      continue;
    }
    const text = exportsThroughLoader(
      exportsItself(asBundledModules(readFileSync(file, "utf8")), file),
      file,
    );
    writeFileSync(file, text);
    if (!text.startsWith(`${WRAPPER_START}\n`)) {
      throw new Error(`${file}: not a script wrapped as src/cli/code-cache.cts expects`);
    }
    hash.update(file).update("\0").update(text).update("\0");
  }
  const buildHash = hash.digest("hex").slice(0, BUILD_HASH_PLACEHOLDER.length);
  const loader = join(cliDirectory, "code-cache.cjs");
  const loaderText = readFileSync(loader, "utf8");
  if (!loaderText.includes(JSON.stringify(BUILD_HASH_PLACEHOLDER))) {
    throw new Error(`${loader}: its build hash placeholder is missing`);
  }
  writeFileSync(
    loader,
    loaderText.replace(JSON.stringify(BUILD_HASH_PLACEHOLDER), JSON.stringify(buildHash)),
  );
  return buildHash;
}

/**
 * Each chunk of the bundle was an ES module, and is a script with `__esModule` set now. esbuild
 * imports a file in "node mode" (`__toESM(require("./x.js"), 1)`), as Node imports CommonJS: the
 * whole `module.exports` becomes `default`, so a chunk's own default export (a package such as
 * `ignore`, whose factory is its default) would be `{ __esModule, default }` instead of the
 * factory. The chunks' requires of each other are made plain (`, 0)`, the same length, so the
 * source map still applies): `__esModule` is then honoured and `default` is the chunk's own.
 * Requires of packages left outside the bundle (CommonJS, such as `pg`) keep Node's meaning.
 * @param {string} text a script's text
 * @returns {string}
 */
function asBundledModules(text) {
  return text.replace(/__toESM\((require\("\.{1,2}\/[^"]+"\)),1\)/g, "__toESM($1,0)");
}

/** esbuild's helper that gives a script's `module.exports`: a copy of its exports object. */
const TO_COMMON_JS_COPY =
  'var __toCommonJS=mod=>__copyProps(__defProp({},"__esModule",{value:true}),mod);';
/** The same helper giving the exports object itself; spaces keep the line's length. */
const TO_COMMON_JS_ITSELF =
  'var __toCommonJS=mod=>__defProp(mod,"__esModule",{value:true});'.padEnd(
    TO_COMMON_JS_COPY.length,
    " ",
  );

/**
 * A script's `module.exports` is the object esbuild fills with a getter per exported name
 * (`__export`), marked `__esModule`, not a copy of it: esbuild's `__toCommonJS` copied every name
 * again as a getter of its own reading through to the first (a closure and a property definition
 * each, and two getters per read), at every script's load: the zod and AI SDK script alone
 * exports 54 names, the session's 162 (bench/notes/start21.md has the figures). Nothing else
 * changes: the object holds the same names, each read through its getter, and nothing adds to it
 * once the script ran. The text keeps its length, so the script's source map still applies. A
 * script whose helper is not esbuild's as expected fails the build.
 * @param {string} text a script's text
 * @param {string} file its path, for the error
 * @returns {string}
 */
export function exportsItself(text, file) {
  if (!text.includes("module.exports=__toCommonJS(")) {
    return text;
  }
  if (text.split(TO_COMMON_JS_COPY).length !== 2) {
    throw new Error(`${file}: esbuild's __toCommonJS is no longer as expected`);
  }
  return text.replace(TO_COMMON_JS_COPY, TO_COMMON_JS_ITSELF);
}

/** esbuild's helper that defines a getter per exported name (numbered when a file holds two). */
const EXPORT_HELPER =
  /var (__export\d*)=\(target,all\)=>\{for\(var (name\d*) in all\)__defProp\d*\(target,\2,\{get:all\[\2\],enumerable:true\}\)\};/g;

/**
 * Every esbuild `__export` helper of a script (the one that fills the script's exports object,
 * and the first pass's, which fills each namespace object of the bundled modules: zod's `z`,
 * `core`, `util` … hold about 900 names) becomes the loader's `__turnloopMeta.exportNames`
 * (src/cli/code-cache.cts), which defines the same getters with the same attributes on an object
 * V8 holds as a dictionary: adding a getter to an object V8 holds with a hidden class makes a new
 * class each time, about 3,000 instructions a name (bench/notes/start22.md). The text keeps its
 * length (spaces), so the script's source map still applies. A script defining an `__export`
 * helper not as expected fails the build.
 * @param {string} text a script's text
 * @param {string} file its path, for the error
 * @returns {string}
 */
export function exportsThroughLoader(text, file) {
  const helpers = text.match(/var __export\d*=/g)?.length ?? 0;
  let replaced = 0;
  const result = text.replace(EXPORT_HELPER, (helper, name) => {
    replaced += 1;
    return `var ${name}=__turnloopMeta.exportNames;`.padEnd(helper.length, " ");
  });
  if (replaced !== helpers) {
    throw new Error(`${file}: esbuild's __export is no longer as expected`);
  }
  return result;
}

/**
 * Reads each file without the text of its `#!` line, if any, and without the `require` banner
 * (each line stays, empty, so that the file's own source map still applies): the loader's wrapper
 * gives the script its `require`, which a `const require` would redeclare.
 * @param {string} requireBanner
 * @returns {import("esbuild").Plugin}
 */
function withoutRequireBanner(requireBanner) {
  return {
    name: "without-require-banner",
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.js$/ }, ({ path }) => ({
        contents: readFileSync(path, "utf8").replace(/^#!.*/, "").replace(requireBanner, ""),
        loader: "js",
        resolveDir: dirname(path),
      }));
    },
  };
}
