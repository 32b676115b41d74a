import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { fsMembersUsed, piTuiBuiltinsDirect } from "../../scripts/pi-tui-builtins-direct.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI's pi-tui takes `fs` and `child_process` with
 * `process.getBuiltinModule` (scripts/pi-tui-builtins-direct.mjs), so that neither Node's ES
 * facade of `node:fs` nor `child_process` loads before the input box. pi-tui's modules that import
 * them are bundled as shipped and as rewritten: the rewritten ones import neither, and the
 * autocompletion that uses them (a folder's entries on Tab, `fd` run as a child process for `@`)
 * gives the same suggestions.
 */

const PI_TUI = fileURLToPath(
  new URL("../../node_modules/@mariozechner/pi-tui/dist/", import.meta.url),
);

type Suggestions = { items: { value: string; label: string }[]; prefix: string } | null;
type Provider = {
  getSuggestions(
    lines: string[],
    line: number,
    column: number,
    options: { force?: boolean; signal: AbortSignal },
  ): Promise<Suggestions>;
};
type AutocompleteModule = {
  CombinedAutocompleteProvider: new (
    commands: unknown[],
    basePath: string,
    fdPath?: string | null,
  ) => Provider;
};

const IMPORTS_OF_THEM = /from\s*"(node:)?(fs|child_process)"/g;

let directory: string;
let project: string;
let fakeFd: string;
let shipped: AutocompleteModule;
let direct: AutocompleteModule;
const bundles: Record<string, { shipped: string; direct: string }> = {};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-pi-tui-builtins-"));
  for (const name of ["autocomplete", "terminal", "tui"]) {
    const module = join(PI_TUI, `${name}.js`);
    const [asShipped, asRewritten] = await Promise.all([
      bundledModule(directory, `${name}-shipped`, module, []),
      bundledModule(directory, `${name}-direct`, module, [piTuiBuiltinsDirect]),
    ]);
    bundles[name] = {
      shipped: await readFile(asShipped, "utf8"),
      direct: await readFile(asRewritten, "utf8"),
    };
  }
  shipped = await import(pathToFileURL(join(directory, "autocomplete-shipped.mjs")).href);
  direct = await import(pathToFileURL(join(directory, "autocomplete-direct.mjs")).href);
  project = join(directory, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "notes.md"), "# notes\n");
  await writeFile(join(project, "src", "main.ts"), "");
  // Stands in for `fd`: prints what a search of the project finds, whatever it is asked.
  fakeFd = join(directory, "fake-fd");
  await writeFile(fakeFd, "#!/bin/sh\nprintf 'notes.md\\nsrc/\\nsrc/main.ts\\n'\n");
  await chmod(fakeFd, 0o755);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function suggestions(module: AutocompleteModule, line: string, force: boolean) {
  const provider = new module.CombinedAutocompleteProvider([], project, fakeFd);
  return provider.getSuggestions([line], 0, line.length, {
    force,
    signal: new AbortController().signal,
  });
}

describe("pi-tui with fs and child_process taken directly (scripts/pi-tui-builtins-direct.mjs)", () => {
  test("the rewritten modules import neither module; as shipped, each imports one of them", () => {
    const imports = (text: string) => [...text.matchAll(IMPORTS_OF_THEM)].map((match) => match[0]);
    expect(Object.values(bundles).map(({ direct }) => imports(direct))).toEqual([[], [], []]);
    expect(Object.values(bundles).map(({ shipped }) => imports(shipped).length > 0)).toEqual([
      true,
      true,
      true,
    ]);
    expect(bundles.autocomplete?.direct).toContain(
      'process.getBuiltinModule("node:child_process")',
    );
  });

  test("Tab completes a folder's entries as shipped (readdirSync, statSync)", async () => {
    const asShipped = await suggestions(shipped, "./", true);
    expect(asShipped?.items.map((item) => item.value).sort()).toEqual(["./notes.md", "./src/"]);
    expect(await suggestions(direct, "./", true)).toEqual(asShipped);
    expect(await suggestions(direct, "./src/", true)).toEqual(
      await suggestions(shipped, "./src/", true),
    );
  });

  test("@ runs fd as a child process and suggests what it printed, as shipped (spawn)", async () => {
    const asShipped = await suggestions(shipped, "@", false);
    expect(asShipped?.items.map((item) => item.value).sort()).toEqual([
      "@notes.md",
      "@src/",
      "@src/main.ts",
    ]);
    expect(await suggestions(direct, "@", false)).toEqual(asShipped);
  });

  test("the build check finds the members of fs a module uses through `import * as`", () => {
    const source = [
      'import * as fs from "node:fs";',
      'import * as other from "fs";',
      "fs.mkdirSync(a); other.watch(b); notfs.readSync(c);",
    ].join("\n");
    expect(fsMembersUsed(source)).toEqual(["mkdirSync", "watch"]);
  });
});
