import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const source = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");
const IMPORT =
  /(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** Every module of src/ that `start` reaches through relative imports, as paths under src/. */
async function reachable(start: string): Promise<string[]> {
  const seen = new Set<string>();
  const pending = [start];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) {
      continue;
    }
    seen.add(file);
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? "";
      pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  }
  return [...seen].map((file) => relative(source, file)).sort();
}

describe("the SDK and the server share src/protocol", () => {
  it("no module the SDK loads, statically or on first use, lies under a face or the session stack", async () => {
    const entries = await readdir(join(source, "sdk"));
    const loaded = new Set<string>();
    for (const entry of entries) {
      for (const file of await reachable(join(source, "sdk", entry))) {
        loaded.add(file);
      }
    }
    const below = /^(server|acp|cli|session|agent)\//;
    expect([...loaded].filter((file) => below.test(file))).toEqual([]);
    expect(loaded.has("protocol/copilot.ts")).toBe(true);
  });
});
