/**
 * For `scripts/bundle.mjs`: the line that gives a chunk a `require` (`createRequire(import.meta.url)`,
 * esbuild's banner) is kept only in the output files whose code names `require` (issue 26).
 *
 * esbuild puts its banner at the top of every output file, but the bundle's CommonJS packages call
 * `__require`, a helper defined once, in the chunk of esbuild's runtime, which alone names
 * `require` itself (`typeof require !== "undefined" ? require : …`). Each banner costs a run the
 * file's `import.meta` object and a `createRequire` (a `Module` with its list of `node_modules`
 * folders), and every chunk it loads pays it: 56 times before `turnloop acp` answered its first
 * prompt. Together with the ES module loader's own path work for each chunk, that made Node's
 * URL-to-path functions hot enough for V8's optimising compiler before the first request (figures in
 * bench/notes/targets.md, "ACP face and `-p`").
 *
 * Whether a file names `require` is read from its syntax tree (TypeScript's parser), not its text:
 * the word appears in strings (ajv writes `require("ajv/dist/runtime/…")` into code it generates)
 * and in names such as `__require`. A file that names it anywhere but as a property name keeps the
 * banner, so nothing that used it loses it.
 */

import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";

/**
 * Whether JavaScript `source` refers to a variable named `require` (not `x.require`, not
 * `{ require: … }`, not in a string).
 * @param {string} source
 * @returns {boolean}
 */
export function namesRequire(source) {
  const file = ts.createSourceFile(
    "chunk.js",
    source,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  /** @param {ts.Node} node @returns {boolean} */
  const visit = (node) => {
    if (ts.isIdentifier(node) && node.text === "require" && !isPropertyName(node)) {
      return true;
    }
    return ts.forEachChild(node, visit) ?? false;
  };
  return visit(file);
}

/** @param {ts.Identifier} identifier */
function isPropertyName(identifier) {
  const parent = identifier.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === identifier) ||
    ((ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isGetAccessorDeclaration(parent) ||
      ts.isSetAccessorDeclaration(parent)) &&
      parent.name === identifier)
  );
}

/**
 * Takes generated line `line` (0-based; the banner's, which maps to no source) out of the source
 * map beside a file, so the lines after it still map to their sources.
 * @param {string} mapFile
 * @param {number} line
 */
function dropSourceMapLine(mapFile, line) {
  const map = JSON.parse(readFileSync(mapFile, "utf8"));
  const lines = map.mappings.split(";");
  if (lines[line] !== "") {
    throw new Error(`${mapFile}: the banner's line maps to a source; not removing it`);
  }
  lines.splice(line, 1);
  map.mappings = lines.join(";");
  writeFileSync(mapFile, JSON.stringify(map));
}

/**
 * Removes `banner` (the text esbuild put after an optional `#!` line) from each of `files` whose
 * code does not name `require` (and its line from the file's source map). A file without the banner where it was expected fails the build.
 * @param {string[]} files paths of the bundle's JavaScript output files
 * @param {string} banner the banner's text, as given to esbuild
 * @returns {{kept: string[], removed: number}} the files that keep it, and how many lost it
 */
export function keepRequireWhereUsed(files, banner) {
  /** @type {string[]} */
  const kept = [];
  let removed = 0;
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const shebang = source.startsWith("#!") ? source.slice(0, source.indexOf("\n") + 1) : "";
    const afterShebang = source.slice(shebang.length);
    if (!afterShebang.startsWith(`${banner}\n`)) {
      throw new Error(`${file}: esbuild's banner is not where it was expected`);
    }
    const code = afterShebang.slice(banner.length + 1);
    if (namesRequire(code)) {
      kept.push(file);
    } else {
      writeFileSync(file, `${shebang}${code}`);
      dropSourceMapLine(`${file}.map`, shebang === "" ? 0 : 1);
      removed += 1;
    }
  }
  return { kept, removed };
}
