/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's imports of `fs` and `child_process` (in
 * `dist/tui.js`, `terminal.js` and `autocomplete.js`) take Node's modules with
 * `process.getBuiltinModule` instead of an ES module import (issue 26: spawn → input box).
 *
 * - An ES module import of `node:fs` makes Node build the module's ES facade, which reads every
 *   export, among them the lazy `ReadStream`/`WriteStream` getters: that loads Node's file
 *   streams, about 0.9 ms CPU before the interactive face's first frame, which uses none (fresh
 *   `node`, stdout already open; `getBuiltinModule("node:fs")`: 0.04 ms). The face's own
 *   imports of `node:fs` before the box (src/session/face-config.ts, config-paths.ts) do the same.
 * - `child_process` is for @-completion's `fd`, which runs at a completion: `spawn` loads it on
 *   its first call (≈ 0.4 ms CPU before the box otherwise).
 *
 * Each import resolves to a small module of this plugin's namespace that exports the names pi-tui
 * uses (`FS_NAMES`, `spawn`). esbuild fails the build on a named import that is not there; for
 * `import * as fs`, whose missing members esbuild leaves `undefined` without a word in
 * node_modules, this plugin reads the importing files and fails the build on any `fs.name` not in
 * `FS_NAMES`, so a pi-tui that uses more of `fs` cannot ship with `undefined` in its place.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_DIST = /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]/;
const NAMESPACE = "pi-tui-builtin";

/** What pi-tui 0.73 takes from `fs`, as named imports and as members of `import * as fs`. */
const FS_NAMES = ["appendFileSync", "mkdirSync", "readdirSync", "statSync", "writeFileSync"];

const CONTENTS = {
  fs: `export const { ${FS_NAMES.join(", ")} } = process.getBuiltinModule("node:fs");\n`,
  child_process: [
    "export function spawn(...args) {",
    '  return process.getBuiltinModule("node:child_process").spawn(...args);',
    "}",
    "",
  ].join("\n"),
};

/** The members of `import * as NAME from "fs"` (or `"node:fs"`) that `source` uses. */
export function fsMembersUsed(source) {
  const namespaces = [...source.matchAll(/import \* as (\w+) from "(?:node:)?fs";/g)].map(
    (match) => match[1],
  );
  return namespaces.flatMap((name) =>
    [...source.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, "g"))].map((match) => match[1]),
  );
}

export const piTuiBuiltinsDirect = {
  name: "pi-tui-builtins-direct",
  setup(pluginBuild) {
    const importers = new Set();
    pluginBuild.onResolve({ filter: /^(node:)?(fs|child_process)$/ }, ({ path, importer }) => {
      if (!PI_TUI_DIST.test(importer)) {
        return undefined;
      }
      importers.add(importer);
      return { path: path.replace(/^node:/, ""), namespace: NAMESPACE };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path }) => ({
      contents: CONTENTS[path],
      loader: "js",
    }));
    pluginBuild.onEnd(async () => {
      for (const importer of importers) {
        const missing = fsMembersUsed(await readFile(importer, "utf8")).filter(
          (name) => !FS_NAMES.includes(name),
        );
        if (missing.length > 0) {
          throw new Error(`${importer}: uses fs.${missing.join(", fs.")}, not in FS_NAMES`);
        }
      }
    });
  },
};
