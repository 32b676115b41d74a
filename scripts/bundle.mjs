/**
 * Bundles the `turnloop` command (`npm run build`, after `tsc`): `src/cli/main.ts` and everything
 * it imports, packages included, into `dist/cli/main.js` plus chunks under `dist/cli/chunks/`,
 * with source maps. Node then reads and compiles a few files instead of about 230 modules
 * before the first model request (issue 26; before/after figures in bench/RESULTS.md).
 *
 * Code splitting keeps every dynamic `import()` lazy: each face, the session stack behind ACP's
 * `initialize`, the MCP client and the Markdown renderer are chunks of their own, loaded when a
 * run needs them. Packages loaded with `createRequire` at run time (the price catalogue, the
 * shell parser) and those that find files next to themselves (`@vscode/ripgrep`'s binary, the
 * optional `pg`) stay outside the bundle and load from `node_modules` as before.
 *
 * Two things keep the bundle's resident memory down (issue 26; figures in bench/RESULTS.md): the
 * ACP SDK's schemas are built on first use (scripts/acp-schemas-on-first-use.mjs), as are the
 * OpenAI-compatible provider's that a request does not need
 * (scripts/compatible-schemas-on-first-use.mjs), and whitespace
 * and comments are left out (`minifyWhitespace`; names are kept, and the source maps lead back to
 * the sources): V8 keeps each file's source in memory, as two bytes a character once a single
 * comment holds a character outside ASCII (zod's chunk did).
 *
 * `dist/cli/chunks/inputs.json` maps each output file (relative to `dist/cli/`) to the source
 * modules bundled into it (relative to the repository), so a test can tell which modules a run
 * loaded by which files it read. Everything else under `dist/` is `tsc`'s output, unchanged: the
 * SDK (`dist/sdk`, the package export) and the modules the tests import.
 *
 * Last, each ES module file is made a script under `dist/cli/scripts/`, what runs
 * (scripts/code-cache-scripts.mjs: V8 keeps their compiled code between runs, src/cli/code-cache.cts),
 * and `dist/cli/main.js` is rewritten as a small ES module that runs main.ts's script. It has the
 * entry's first line (`#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2`,
 * the flags explained in src/cli/main.ts) and is made executable, so editors can start
 * `dist/cli/main.js acp` itself. So is the package's `bin`, `dist/cli/turnloop.cjs` (`tsc`'s
 * output of src/cli/turnloop.cts: `--version` without Node's ES module loader, every other command
 * through the same script). A build where either first line lost the flags fails. The ES module files stay in `dist/cli/`
 * (`chunks/inputs.json` names their modules, which the scripts hold too); no run loads them.
 */

import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import { acpSchemasOnFirstUse } from "./acp-schemas-on-first-use.mjs";
import { writeCodeCacheScripts } from "./code-cache-scripts.mjs";
import {
  chunkSchemaOnFirstRead,
  moduleSchemasOnFirstUse,
} from "./compatible-schemas-on-first-use.mjs";
import { mergeChunks } from "./merge-chunks.mjs";
import { piTuiBorderOneSpan } from "./pi-tui-border-one-span.mjs";
import { piTuiBuiltinsDirect } from "./pi-tui-builtins-direct.mjs";
import { piTuiFirstFrameAtOnce } from "./pi-tui-first-frame-at-once.mjs";
import { piTuiMarkdownApart } from "./pi-tui-markdown-apart.mjs";
import { piTuiUnicodeOnFirstUse } from "./pi-tui-unicode-on-first-use.mjs";
import { providerUtilsAsBundled } from "./provider-utils-as-bundled.mjs";
import { PROVIDER_PACKAGES, valueTransformAsTransformStream } from "./providers-as-bundled.mjs";
import { keepRequireWhereUsed } from "./require-where-used.mjs";

const OUTPUT = "dist/cli";

/**
 * `dist/cli/main.js` once the bundle's scripts are written: the ES module that editors and the SDK
 * start. It sets the first line's flags back as the bin does, through V8's binding when there is
 * one (src/cli/turnloop.cts, `resetYoungGenerationFlag`, says why and how), and runs the script
 * of src/cli/main.ts as the bin does, through src/cli/code-cache.cts.
 */
const MAIN_ENTRY = [
  "#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2",
  "// turnloop's ES module entry (scripts/bundle.mjs): as the bin, src/cli/turnloop.cts.",
  'import { createRequire } from "node:module";',
  "// --no-deprecation makes process.noDeprecation read-only (and true): assign only when off.",
  "const quiet = process.noDeprecation === true;",
  "if (!quiet) process.noDeprecation = true;",
  "let v8;",
  "try {",
  '  v8 = process.binding?.("v8");',
  "} catch {",
  "  // No binding to take: node:v8 below.",
  "} finally {",
  "  if (!quiet) process.noDeprecation = false;",
  "}",
  'if (typeof v8?.setFlagsFromString !== "function") v8 = process.getBuiltinModule("node:v8");',
  'v8.setFlagsFromString("--max-semi-space-size=0 --min-semi-space-size=0");',
  'createRequire(import.meta.url)("./code-cache.cjs").runScript(',
  '  process.getBuiltinModule("node:url").fileURLToPath(new URL("./scripts/main.js", import.meta.url)),',
  ");",
  "",
].join("\n");

// Chunks are ES modules; CommonJS packages inside them call `require`, which ES modules lack. Only
// the files that name it keep this line (scripts/require-where-used.mjs).
const REQUIRE_BANNER =
  'import { createRequire as __turnloopCreateRequire } from "node:module"; ' +
  "const require = __turnloopCreateRequire(import.meta.url);";

/**
 * zod re-exports its error messages in every language it ships (`z.locales`, `z.core.locales`:
 * 64 modules, 340 KB of source) although it configures English alone and turnloop never calls
 * `z.config(z.locales.…())`. Bundled, they were compiled and kept by every run that validates
 * anything (issue 26). This plugin makes both namespaces hold English only; the messages zod
 * writes (English) are unchanged.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(importer)
        ? { path: join(dirname(importer), "..", "locales", "en.js"), namespace: "zod-english" }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: "zod-english" }, ({ path }) => ({
      contents: `export { default as en } from ${JSON.stringify(path)};`,
      resolveDir: dirname(path),
    }));
  },
};

/**
 * `fdir` (under `tinyglobby`, which the glob and grep tools use) looks for `picomatch` at import
 * with a `require` inside `try`, which esbuild leaves to run time: every session loaded a second,
 * unbundled copy of picomatch (six files) beside the bundled one. This plugin points that `require`
 * at the bundled picomatch; fdir's `glob()` gets the same function as before. A changed fdir fails
 * the build rather than loading the copy again.
 */
const fdirBundledPicomatch = {
  name: "fdir-bundled-picomatch",
  setup(pluginBuild) {
    pluginBuild.onLoad(
      { filter: /[\\/]node_modules[\\/]fdir[\\/]dist[\\/]index\.mjs$/ },
      async ({ path }) => {
        const source = await readFile(path, "utf8");
        const lookup = /__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);/;
        if (!lookup.test(source)) {
          throw new Error(`${path}: fdir no longer requires picomatch as expected`);
        }
        return {
          contents: `import __bundledPicomatch from "picomatch";\n${source.replace(lookup, "pm = __bundledPicomatch;")}`,
          loader: "js",
        };
      },
    );
  },
};

/**
 * `@ai-sdk/provider-utils` imports zod 3 (about 4,000 lines, evaluated with the provider on every
 * first model request) for one thing: the `ZodFirstPartyTypeKind` enum, which names the kinds of a
 * zod 3 schema when one is converted to JSON Schema. turnloop passes zod 4 schemas only. This
 * plugin gives provider-utils that enum alone, copied from zod 3's own source at build time; an
 * import of anything else from `zod/v3` fails the build (esbuild: no matching export).
 */
const zod3KindsOnly = {
  name: "zod3-kinds-only",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^zod\/v3$/ }, async ({ importer, resolveDir, kind }) => {
      if (!/[\\/]node_modules[\\/]@ai-sdk[\\/]provider-utils[\\/]/.test(importer)) {
        return undefined;
      }
      const resolved = await pluginBuild.resolve("zod/v3", { resolveDir, kind });
      return { path: join(dirname(resolved.path), "types.js"), namespace: "zod3-kinds" };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: "zod3-kinds" }, async ({ path }) => {
      const kinds = [
        ...(await readFile(path, "utf8")).matchAll(/ZodFirstPartyTypeKind\["(\w+)"\] = "(\w+)";/g),
      ].map(([, key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
      if (kinds.length < 30) {
        throw new Error(`${path}: zod 3's ZodFirstPartyTypeKind not found`);
      }
      return {
        contents: `export const ZodFirstPartyTypeKind = Object.freeze({ ${kinds.join(", ")} });\n`,
        loader: "js",
      };
    });
  },
};

/**
 * `@ai-sdk/provider-utils` as scripts/provider-utils-as-bundled.mjs makes it: turnloop's
 * `HeaderList` in place of the global `Headers` (which loads undici), its event streams parsed in
 * one stage, its reader of a response's body kept locked. The in-process benchmarks load the same.
 */
const providerUtilsHeaderList = {
  name: "provider-utils-header-list",
  setup(pluginBuild) {
    pluginBuild.onLoad(
      { filter: /[\\/]node_modules[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ },
      async ({ path }) => ({
        contents: providerUtilsAsBundled(await readFile(path, "utf8"), path, {
          headerList: join(process.cwd(), "src", "llm", "http-headers.ts"),
          sseEventTransform: join(process.cwd(), "src", "llm", "sse-event-transform.ts"),
        }),
        loader: "js",
      }),
    );
  },
};

/**
 * The AI SDK's provider packages as scripts/providers-as-bundled.mjs makes them (their
 * `TransformStream` turnloop's `ValueTransform`), the OpenAI-compatible one's schemas also made on
 * first use (scripts/compatible-schemas-on-first-use.mjs: one plugin, since only the first
 * `onLoad` that answers for a file counts).
 */
const providersAsBundled = {
  name: "providers-as-bundled",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: PROVIDER_PACKAGES }, async ({ path }) => {
      let source = await readFile(path, "utf8");
      if (/[\\/]openai-compatible[\\/]/.test(path)) {
        source = moduleSchemasOnFirstUse(chunkSchemaOnFirstRead(source, path), path);
      }
      const valueTransform = join(process.cwd(), "src", "llm", "value-transform.ts");
      return {
        contents: valueTransformAsTransformStream(source, path, valueTransform),
        loader: "js",
      };
    });
  },
};

/**
 * What each kind of run imports up to the point its figure is measured (issue 26), as source entry
 * points: scripts/merge-chunks.mjs merges the chunks that the same phases load. Each list is what
 * that run loads by `import()` (src/cli/run.ts and the faces' own lazy imports); the providers are
 * phases of their own, since a run loads one of them.
 */
const SESSION_CONFIG = [
  "src/cli/run.ts",
  "src/session/face-config.ts",
  "src/session/run-config.ts",
];
const INTERACTIVE_FACE = [
  "src/cli/run.ts",
  "src/session/face-config.ts",
  "src/session/paths.ts",
  "src/cli/interactive/run.ts",
];
const PROVIDER_CHECKS = "src/llm/sync-chunk-validation.ts";
const LOAD_PHASES = {
  "-p": [...SESSION_CONFIG, "src/session/paths.ts", "src/cli/prompt-command.ts"],
  "acp initialize": [...SESSION_CONFIG, "src/acp/start.ts"],
  "acp session/new": [
    ...SESSION_CONFIG,
    "src/acp/start.ts",
    "src/acp/main.ts",
    "src/acp/session-requests.ts",
    "src/session/host.ts",
  ],
  "interactive input box": [...INTERACTIVE_FACE, "src/cli/interactive/terminal-face.ts"],
  "interactive session": [
    ...INTERACTIVE_FACE,
    "src/cli/interactive/terminal-face.ts",
    "src/session/host.ts",
    "src/session/run-config.ts",
    "src/cli/interactive/controller.ts",
    "src/cli/interactive/screen-view.ts",
  ],
  "interactive plain face": [
    ...INTERACTIVE_FACE,
    "src/session/host.ts",
    "src/session/run-config.ts",
    "src/cli/interactive/plain-face.ts",
  ],
  "OpenAI-compatible provider": [
    "node_modules/@ai-sdk/openai-compatible/dist/index.mjs",
    PROVIDER_CHECKS,
  ],
  "OpenAI provider": ["node_modules/@ai-sdk/openai/dist/index.mjs", PROVIDER_CHECKS],
  "Anthropic provider": ["node_modules/@ai-sdk/anthropic/dist/index.mjs", PROVIDER_CHECKS],
};

// Chunk names carry a hash of their content: clear the last build's.
rmSync(`${OUTPUT}/chunks`, { recursive: true, force: true });

const result = await build({
  entryPoints: { main: "src/cli/main.ts" },
  outdir: OUTPUT,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  minifyWhitespace: true,
  external: ["@vscode/ripgrep", "pg"],
  banner: { js: REQUIRE_BANNER },
  metafile: true,
  plugins: [
    zodEnglishOnly,
    zod3KindsOnly,
    acpSchemasOnFirstUse,
    providersAsBundled,
    fdirBundledPicomatch,
    providerUtilsHeaderList,
    piTuiMarkdownApart,
    piTuiUnicodeOnFirstUse,
    piTuiFirstFrameAtOnce,
    piTuiBuiltinsDirect,
    piTuiBorderOneSpan,
  ],
  logLevel: "warning",
});

keepRequireWhereUsed(
  Object.keys(result.metafile.outputs).filter((file) => file.endsWith(".js")),
  REQUIRE_BANNER,
);

// Chunks that the same kinds of run load together become one file (scripts/merge-chunks.mjs).
const { merged, removed } = await mergeChunks(result.metafile, LOAD_PHASES);

/** @type {Record<string, string[]>} */
const inputs = {};
for (const [output, { inputs: bundled }] of Object.entries(result.metafile.outputs)) {
  if (output.endsWith(".js")) {
    inputs[relative(OUTPUT, output)] = Object.keys(bundled);
  }
}
for (const [file, members] of merged) {
  inputs[relative(OUTPUT, file)] = members.flatMap(
    (member) => inputs[relative(OUTPUT, member)] ?? [],
  );
  for (const member of members) {
    delete inputs[relative(OUTPUT, member)];
  }
}
for (const file of removed) {
  delete inputs[relative(OUTPUT, file)];
}
writeFileSync(`${OUTPUT}/chunks/inputs.json`, `${JSON.stringify(inputs, null, 1)}\n`);

// Each chunk Node loads is an ES module because of the nearest package.json's `"type"`; without one
// beside the chunks, Node looks for it in every folder up to the package's own, for each import of
// a chunk (about 200 before `turnloop acp` answers its first prompt; bench/notes/targets.md,
// "ACP face and `-p`").
writeFileSync(`${OUTPUT}/chunks/package.json`, `${JSON.stringify({ type: "module" })}\n`);

// The same files again as scripts that V8's code cache can keep (scripts/code-cache-scripts.mjs),
// which the bin runs; `main.js` becomes the ES module entry that imports the bin.
await writeCodeCacheScripts(OUTPUT, REQUIRE_BANNER);
writeFileSync(`${OUTPUT}/main.js`, MAIN_ENTRY);
rmSync(`${OUTPUT}/main.js.map`);

for (const bin of [`${OUTPUT}/main.js`, `${OUTPUT}/turnloop.cjs`]) {
  const firstLine = readFileSync(bin, "utf8").split("\n", 1)[0];
  if (firstLine !== "#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2") {
    throw new Error(
      `${bin}: its first line is ${JSON.stringify(firstLine)}, not turnloop's shebang`,
    );
  }
  chmodSync(bin, 0o755);
}
