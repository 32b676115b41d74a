import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";

/**
 * Issue 26, figure 1a: a script of the bundle (scripts/code-cache-scripts.mjs) gives as its
 * `module.exports` the object esbuild defined its exported names on, not a copy holding a second
 * getter per name that reads through to the first (bench/notes/start21.md). Run in a real `node`
 * through the bundle's own loader (src/cli/code-cache.cts), its cache off.
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

describe("the bundle's scripts export without a copy (issue 26)", () => {
  test("the script holding zod and the AI SDK's provider: each name is read through esbuild's getter alone", () => {
    const script = join(
      CLI_DIRECTORY,
      "scripts",
      fileHolding("node_modules/zod/v4/classic/external.js"),
    );
    const output = execFileSync(
      process.execPath,
      ["-e", INSPECT, join(CLI_DIRECTORY, "code-cache.cjs"), script],
      { env: { ...process.env, TURNLOOP_NO_CODE_CACHE: "1" }, encoding: "utf8" },
    );
    const seen = JSON.parse(output) as { names: number; copies: number; esModule: boolean };
    // The script exports names (so the count of copies can be other than 0), none of them copied.
    expect(seen.names).toBeGreaterThan(20);
    expect({ copies: seen.copies, esModule: seen.esModule }).toEqual({ copies: 0, esModule: true });
  });
});
