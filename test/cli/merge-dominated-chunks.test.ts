import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { plannedMerges } from "../../scripts/merge-dominated-chunks.mjs";
import { CLI_PATH } from "../support/cli.js";

/**
 * Issue 26: a shared chunk goes into the entry chunk that is always loaded before it
 * (scripts/merge-dominated-chunks.mjs), so the interactive face reads fewer files before its first
 * frame. The plan is checked on small graphs of esbuild's metafile form; the built CLI is checked
 * for imports of files that are gone.
 */

type Import = { path: string; kind: "import-statement" | "dynamic-import"; external?: boolean };
type Outputs = Record<string, { imports: Import[]; exports: string[]; entryPoint?: string }>;

const plan = plannedMerges as (
  outputs: Outputs,
  main: string,
  apart?: Set<string>,
) => Map<string, string[]>;

/** An output file: `static` and `dynamic` name the files it imports, `exports` its names. */
function file(
  imports: { static?: string[]; dynamic?: string[] } = {},
  exports: string[] = [],
): Outputs[string] {
  return {
    imports: [
      ...(imports.static ?? []).map((path) => ({ path, kind: "import-statement" as const })),
      ...(imports.dynamic ?? []).map((path) => ({ path, kind: "dynamic-import" as const })),
      { path: "node:fs", kind: "import-statement", external: true },
    ],
    exports,
  };
}

/**
 * main imports run; run reaches the leaf `errors` and imports two faces; the face `tui` imports
 * its conversation later, and both use `widgets`; `prompt` and `tui` both use `store`.
 */
function cliLike(): Outputs {
  return {
    "main.js": file({ dynamic: ["run.js"] }),
    "run.js": file({ static: ["errors.js"], dynamic: ["tui.js", "prompt.js"] }, ["runCommand"]),
    "errors.js": file({}, ["errorMessage"]),
    "tui.js": file({ static: ["widgets.js", "store.js", "errors.js"], dynamic: ["talk.js"] }),
    "talk.js": file({ static: ["widgets.js", "errors.js"] }, ["Talk"]),
    "widgets.js": file({}, ["Editor"]),
    "prompt.js": file({ static: ["store.js", "errors.js"] }, ["runPrompt"]),
    "store.js": file({}, ["Store"]),
  };
}

describe("shared chunks merged into the entry always loaded before them (issue 26)", () => {
  test("a chunk goes into the entry that loads it and is loaded before every other that does", () => {
    // `store` is reached by two faces neither of which comes before the other, and `run` does not
    // load it: it stays.
    expect([...plan(cliLike(), "main.js")]).toEqual([
      ["run.js", ["errors.js"]],
      ["tui.js", ["widgets.js"]],
    ]);
  });

  test("an entry a second chain of imports reaches is not dominated: what it shares stays", () => {
    const outputs = cliLike();
    // `talk` is also imported from `prompt`, so `tui` no longer comes before every load of it.
    outputs["prompt.js"] = file({ static: ["store.js", "errors.js"], dynamic: ["talk.js"] });
    expect([...plan(outputs, "main.js")]).toEqual([["run.js", ["errors.js"]]]);
  });

  test("another entry point of the build is a root: what it loads stays out of the faces' files", () => {
    const outputs = cliLike();
    // An entry point of its own (no import() names it) that uses the face's widgets.
    outputs["viewer.js"] = { ...file({ static: ["widgets.js"] }), entryPoint: "src/viewer.ts" };
    expect([...plan(outputs, "main.js")]).toEqual([["run.js", ["errors.js"]]]);
  });

  test("names that clash, a default export, files kept apart and the bundle's entry stay", () => {
    const clash = cliLike();
    clash["widgets.js"] = file({}, ["Editor", "Talk"]);
    clash["tui.js"] = file(
      { static: ["widgets.js", "store.js", "errors.js"], dynamic: ["talk.js"] },
      ["Talk"],
    );
    expect([...plan(clash, "main.js")]).toEqual([["run.js", ["errors.js"]]]);

    const withDefault = cliLike();
    withDefault["errors.js"] = file({}, ["default"]);
    expect([...plan(withDefault, "main.js")]).toEqual([["tui.js", ["widgets.js"]]]);

    expect([...plan(cliLike(), "main.js", new Set(["errors.js", "tui.js"]))]).toEqual([]);

    const fromMain = cliLike();
    fromMain["main.js"] = file({ static: ["errors.js"], dynamic: ["run.js"] });
    expect([...plan(fromMain, "main.js")]).toEqual([["tui.js", ["widgets.js"]]]);
  });

  test("a chunk that a file loaded by the entry, and left apart, imports is not merged", () => {
    const outputs = cliLike();
    // `screen` stays apart (its name clashes with the face's) and imports `widgets`: merged, the
    // face's file would be imported by `screen` while it is still loading it.
    outputs["tui.js"] = file(
      { static: ["screen.js", "widgets.js", "store.js", "errors.js"], dynamic: ["talk.js"] },
      ["Screen"],
    );
    outputs["screen.js"] = file({ static: ["widgets.js"] }, ["Screen"]);
    expect([...plan(outputs, "main.js")]).toEqual([["run.js", ["errors.js"]]]);
    // Without the clash, both go into the face's file.
    outputs["tui.js"] = file({
      static: ["screen.js", "widgets.js", "store.js", "errors.js"],
      dynamic: ["talk.js"],
    });
    expect([...plan(outputs, "main.js")]).toEqual([
      ["run.js", ["errors.js"]],
      ["tui.js", ["screen.js", "widgets.js"]],
    ]);
  });

  test("the built CLI imports no file that is gone, and inputs.json lists the files there are", () => {
    const directory = dirname(CLI_PATH);
    const inputs = JSON.parse(
      readFileSync(join(directory, "chunks", "inputs.json"), "utf8"),
    ) as Record<string, string[]>;
    const missing = Object.keys(inputs).flatMap((name) => {
      const path = join(directory, name);
      const text = readFileSync(path, "utf8");
      const specifiers = [...text.matchAll(/(?:from\s*|import\s*\(?\s*)"(\.\.?\/[^"]+\.js)"/g)];
      return specifiers
        .map((match) => resolve(dirname(path), match[1] ?? ""))
        .filter((imported) => !existsSync(imported))
        .map((imported) => `${name} → ${imported}`);
    });
    expect(missing).toEqual([]);
    // Every merged module is listed once, in the file that holds it.
    const modules = Object.values(inputs).flat();
    expect(modules.filter((module, index) => modules.indexOf(module) !== index)).toEqual([]);
  });
});
