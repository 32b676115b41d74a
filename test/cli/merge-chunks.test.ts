import { readdirSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { chunkGroups, redirectImports } from "../../scripts/merge-chunks.mjs";
import { CLI_PATH } from "../support/cli.js";

/**
 * Issue 26: the bundle's chunks that the same kinds of run load are merged into one file each
 * (scripts/merge-chunks.mjs), so `-p` and `acp` read a handful of files instead of about fifty.
 * The rule on a small metafile, the rewriting of imports, and the built files: every import names
 * a file that is there, none imports itself back, and the source maps still lead to the sources.
 */

const CHUNKS = join(dirname(CLI_PATH), "chunks");

type Output = {
  imports: Array<{ path: string; kind: string }>;
  exports: string[];
  inputs: Record<string, object>;
  entryPoint?: string;
};

const groups = chunkGroups as (
  metafile: { outputs: Record<string, Output> },
  phases: Record<string, string[]>,
) => string[][];
const redirect = redirectImports as (
  source: string,
  groupOf: Map<string, string>,
  bundledWith?: Set<string>,
) => string;

/** A metafile output: `imports` are static unless named in `dynamic`. */
function output(imports: string[], options: { entryPoint?: string; dynamic?: string[] } = {}) {
  return {
    imports: [
      ...imports.map((path) => ({ path, kind: "import-statement" })),
      ...(options.dynamic ?? []).map((path) => ({ path, kind: "dynamic-import" })),
    ],
    exports: [],
    inputs: { "src/module.ts": {} },
    ...(options.entryPoint === undefined ? {} : { entryPoint: options.entryPoint }),
  };
}

describe("merging the chunks that the same runs load (issue 26)", () => {
  test("chunks and lazy entries loaded by the same phases become one group; the rest stay", () => {
    // main.js's own import stays a file; chunk-NONE, which no phase loads, too.
    const outputs = {
      "dist/cli/main.js": output([], {
        entryPoint: "src/main.ts",
        dynamic: ["dist/cli/chunks/run-R.js"],
      }),
      "dist/cli/chunks/run-R.js": output(["dist/cli/chunks/chunk-ALL.js"], {
        entryPoint: "src/run.ts",
        dynamic: ["dist/cli/chunks/a-A.js", "dist/cli/chunks/b-B.js"],
      }),
      "dist/cli/chunks/a-A.js": output(
        [
          "dist/cli/chunks/chunk-AB1.js",
          "dist/cli/chunks/chunk-A1.js",
          "dist/cli/chunks/chunk-A2.js",
        ],
        { entryPoint: "src/a.ts" },
      ),
      "dist/cli/chunks/b-B.js": output(
        ["dist/cli/chunks/chunk-AB1.js", "dist/cli/chunks/chunk-AB2.js"],
        {
          entryPoint: "src/b.ts",
        },
      ),
      "dist/cli/chunks/chunk-AB1.js": output(["dist/cli/chunks/chunk-AB2.js"]),
      "dist/cli/chunks/chunk-AB2.js": output([]),
      "dist/cli/chunks/chunk-A1.js": output([]),
      "dist/cli/chunks/chunk-A2.js": output([]),
      "dist/cli/chunks/chunk-ALL.js": output([]),
      "dist/cli/chunks/chunk-NONE.js": output([]),
    };
    expect(
      groups({ outputs }, { a: ["src/run.ts", "src/a.ts"], b: ["src/run.ts", "src/b.ts"] }),
    ).toEqual([
      ["dist/cli/chunks/a-A.js", "dist/cli/chunks/chunk-A1.js", "dist/cli/chunks/chunk-A2.js"],
      [
        "dist/cli/chunks/chunk-AB1.js",
        "dist/cli/chunks/chunk-AB2.js",
        "dist/cli/chunks/chunk-ALL.js",
      ],
    ]);
  });

  test("imports and re-exports of a merged chunk name its group's file and its names there", () => {
    const groupOf = new Map([
      ["chunk-C1.js", "shared-G.js"],
      ["chunk-C2.js", "shared-G.js"],
    ]);
    const source =
      'import{x as y,z}from"./chunk-C1.js";import"./chunk-C2.js";import{q}from"./chunk-OTHER.js";export{w}from"./chunk-C1.js";';
    expect(redirect(source, groupOf)).toBe(
      'import { x$C1 as y, z$C1 as z } from "./shared-G.js";import "./shared-G.js";import{q}from"./chunk-OTHER.js";export { w$C1 as w } from "./shared-G.js";',
    );
    // Inside the group's own build, its members import each other as before.
    expect(redirect(source, groupOf, new Set(["chunk-C1.js", "chunk-C2.js"]))).toBe(source);
  });

  test("the built files import only files that are there, without cycles, and map to the sources", () => {
    const files = readdirSync(CHUNKS).filter((file) => file.endsWith(".js"));
    const imports = new Map(
      files.map((file) => [
        file,
        [
          ...readFileSync(join(CHUNKS, file), "utf8").matchAll(
            /\b(?:import|export)\s*(?:[\w$\s{},*]*?\bfrom\s*)?"\.\/([\w.-]+)"/g,
          ),
        ].map((match) => match[1] ?? ""),
      ]),
    );
    expect([...imports.values()].flat().filter((file) => !files.includes(file))).toEqual([]);
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, stack: string[]) => {
      if (stack.includes(file)) {
        cycles.push([...stack, file].join(" → "));
      } else if (!done.has(file)) {
        for (const imported of imports.get(file) ?? []) {
          visit(imported, [...stack, file]);
        }
        done.add(file);
      }
    };
    for (const file of files) {
      visit(file, []);
    }
    expect(cycles).toEqual([]);
    // Merged files are there (so the checks above can fail), each listed with its modules.
    const inputs = JSON.parse(readFileSync(join(CHUNKS, "inputs.json"), "utf8")) as Record<
      string,
      string[]
    >;
    const merged = files.filter((file) => file.startsWith("shared-"));
    expect(merged.length).toBeGreaterThan(5);
    expect(Object.keys(inputs).sort()).toEqual(
      ["main.js", ...files.map((file) => `chunks/${file}`)].sort(),
    );
    // A merged file's last mapped line of code maps back to a source of the repository (the
    // lines after it are the merge's own exports, which map to nothing).
    const [file] = merged;
    const lines = readFileSync(join(CHUNKS, file ?? ""), "utf8").split("\n");
    const map = new SourceMap(JSON.parse(readFileSync(join(CHUNKS, `${file}.map`), "utf8")));
    const sources = lines.map((line, index) => {
      const column = line.length - line.trimStart().length;
      return (map.findEntry(index, column) as { originalSource?: string }).originalSource;
    });
    const last = sources.findLast((source) => source !== undefined);
    expect(last).toMatch(/\/(src\/.*\.ts|node_modules\/.*\.[cm]?js)$/);
  });
});
