import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { namesRequire } from "../../scripts/require-where-used.mjs";
import { CLI_PATH } from "../support/cli.js";

/**
 * Issue 26: the bundled CLI's files create a `require` (`createRequire(import.meta.url)`) only
 * where their code names it (scripts/require-where-used.mjs), and the chunks' folder says they are
 * ES modules itself, so Node does not look for a package.json in every folder above for each one.
 */

const BANNER =
  'import { createRequire as __turnloopCreateRequire } from "node:module"; ' +
  "const require = __turnloopCreateRequire(import.meta.url);";
const CLI_DIRECTORY = dirname(CLI_PATH);

const isNamed = namesRequire as (source: string) => boolean;

describe("require where the bundle uses it (issue 26)", () => {
  test("names `require` only as a variable: not in strings, property names or other names", () => {
    const cases: Array<[string, boolean]> = [
      ['var __require = typeof require !== "undefined" ? require : undefined;', true],
      ['const os = require("node:os");', true],
      ['var os = __require("node:os");', false],
      ["module.require; ({ require: 1 }); class A { require() {} }", false],
      ["uri.code = 'require(\"ajv/dist/runtime/uri\").default';", false],
      ['const code = `require("pg")`;', false],
    ];
    expect(cases.map(([source]) => [source, isNamed(source)])).toEqual(cases);
  });

  test("the built files keep the banner exactly where their code names `require`", () => {
    const files = Object.keys(
      JSON.parse(readFileSync(join(CLI_DIRECTORY, "chunks", "inputs.json"), "utf8")) as object,
    );
    const found = files.map((file) => {
      const lines = readFileSync(join(CLI_DIRECTORY, file), "utf8").split("\n");
      const code = lines[0]?.startsWith("#!") ? lines.slice(1) : lines;
      const banner = code[0] === BANNER;
      return { file, banner, namesRequire: isNamed((banner ? code.slice(1) : code).join("\n")) };
    });
    expect(found.filter((entry) => entry.banner !== entry.namesRequire)).toEqual([]);
    // esbuild's runtime helpers (`__require`) are the only code that names it.
    expect(found.filter((entry) => entry.banner)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(CLI_DIRECTORY, "chunks", "package.json"), "utf8"))).toEqual(
      { type: "module" },
    );
  });

  test("the entry's script, made from a file that lost the banner, maps its lines to their sources", () => {
    // scripts/code-cache-scripts.mjs rebuilt the bundle's `main.js` (without the banner, as
    // scripts/require-where-used.mjs left it) as dist/cli/scripts/main.js; its map goes through
    // both builds back to src/cli/main.ts.
    const script = join(CLI_DIRECTORY, "scripts", "main.js");
    const lines = readFileSync(script, "utf8").split("\n");
    const line = lines.findIndex((text) => text.includes("var VERSION="));
    const column = lines[line]?.indexOf("var VERSION=") ?? -1;
    const map = new SourceMap(JSON.parse(readFileSync(`${script}.map`, "utf8")));
    const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number };
    const sourceLines = readFileSync(join(CLI_DIRECTORY, "../../src/cli/main.ts"), "utf8").split(
      "\n",
    );
    expect({ line, source: entry.originalSource?.endsWith("src/cli/main.ts") }).toEqual({
      line: 1,
      source: true,
    });
    expect(sourceLines[entry.originalLine ?? -1]).toBe('const VERSION = "0.1.0";');
  });
});
