import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";

/**
 * Issue 26, figure 1a: a script of the bundle (scripts/code-cache-scripts.mjs) gives as its
 * `module.exports` the object esbuild defined its exported names on, not a copy holding a second
 * getter per name that reads through to the first (bench/notes/start21.md), and those names, and
 * those of the namespaces inside it (zod's `z` …), are defined on objects V8 holds as
 * dictionaries (bench/notes/start22.md). Run in a real `node` through the bundle's own loader
 * (src/cli/code-cache.cts), its cache off.
 */

const CLI_DIRECTORY = dirname(CLI_PATH);

/** The file (under `dist/cli/`) holding `module`, as `dist/cli/chunks/inputs.json` says. */
function fileHolding(module: string): string {
  const inputs = JSON.parse(
    readFileSync(join(CLI_DIRECTORY, "chunks", "inputs.json"), "utf8"),
  ) as Record<string, string[]>;
  const file = Object.keys(inputs).find((name) =>
    inputs[name]?.some((input) => input.endsWith(module)),
  );
  if (file === undefined) {
    throw new Error(`no file of the bundle holds ${module}`);
  }
  return file;
}

/** What the script's exports look like once it ran: its names, and how many read a copy. */
const INSPECT = `
const exported = require(process.argv[1]).runScript(process.argv[2]);
const names = Object.keys(exported);
const copies = names.filter((name) =>
  String(Object.getOwnPropertyDescriptor(exported, name).get).includes("from[key]"),
);
process.stdout.write(JSON.stringify({ names: names.length, copies: copies.length, esModule: exported.__esModule }));
`;

/** How the script's exports and zod's `z` inside it are held (V8's `%HasFastProperties`). */
const INSPECT_HOLDING = `
const exported = require(process.argv[1]).runScript(process.argv[2]);
const z = exported[Object.keys(exported).find((name) => name.startsWith("external_exports$"))];
const getter = (object, name) => {
  const { get, enumerable, configurable } = Object.getOwnPropertyDescriptor(object, name);
  return { get: typeof get, enumerable, configurable };
};
process.stdout.write(JSON.stringify({
  exportsFast: %HasFastProperties(exported),
  zFast: %HasFastProperties(z),
  zManyNames: Object.keys(z).length > 100,
  zString: getter(z, "string"),
  parsed: z.object({ name: z.string() }).parse({ name: "notes.md" }),
}));
`;

/** Runs `program` with the loader and the script holding zod; what it printed, parsed. */
function inspectZodScript(program: string, flags: string[] = []): unknown {
  const script = join(
    CLI_DIRECTORY,
    "scripts",
    fileHolding("node_modules/zod/v4/classic/external.js"),
  );
  const output = execFileSync(
    process.execPath,
    [...flags, "-e", program, join(CLI_DIRECTORY, "code-cache.cjs"), script],
    { env: { ...process.env, TURNLOOP_NO_CODE_CACHE: "1" }, encoding: "utf8" },
  );
  return JSON.parse(output);
}

describe("the bundle's scripts export without a copy (issue 26)", () => {
  test("exported names and zod's namespaces are getters on dictionaries, as esbuild defines them", () => {
    expect(inspectZodScript(INSPECT_HOLDING, ["--allow-natives-syntax"])).toEqual({
      exportsFast: false,
      zFast: false,
      // zod's namespace holds its names (so the check of how it is held can fail).
      zManyNames: true,
      zString: { get: "function", enumerable: true, configurable: false },
      parsed: { name: "notes.md" },
    });
  });

  test("the script holding zod and the AI SDK's provider: each name is read through esbuild's getter alone", () => {
    const seen = inspectZodScript(INSPECT) as { names: number; copies: number; esModule: boolean };
    // The script exports names (so the count of copies can be other than 0), none of them copied.
    expect(seen.names).toBeGreaterThan(20);
    expect({ copies: seen.copies, esModule: seen.esModule }).toEqual({ copies: 0, esModule: true });
  });
});
