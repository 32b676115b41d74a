/**
 * The one place that makes a test's `TURNLOOP_HOME`: a fresh temporary folder holding the run's
 * warm code cache (test/support/code-cache-global.ts), so that the first CLI run in it does not
 * compile all of turnloop's scripts again (src/cli/code-cache.cts). A test about the cache itself,
 * or whose bound depends on a cold start, asks for a cold home.
 */

import { link, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import type { CodeCacheTemplate } from "./code-cache-global.js";

/** The template's home for this file, asked once (undefined: none, the homes stay cold). */
let template: Promise<string | undefined> | undefined;

/** The run's template home, or undefined when the service made none (it said why, once). */
function templateHome(): Promise<string | undefined> {
  template ??= fetch(inject("codeCacheService"))
    .then((response) => response.json() as Promise<CodeCacheTemplate>)
    .then((answer) => answer.template ?? undefined);
  return template;
}

/**
 * Makes `<tmpdir>/<prefix>XXXXXX` (mode 0700, as `mkdtemp` makes it) and, unless `codeCache` is
 * `"cold"`, gives it the template's `cache/code/<build folder>/*.bin`: its folders made mode 0700
 * (the cache reader takes no other), its files hard links to the template's (the CLI replaces a
 * cache file by renaming a new one over it, never writes into one, so no home changes another).
 * Resolves to the new folder's path.
 */
export async function makeHome(
  prefix: string,
  codeCache: "warm" | "cold" = "warm",
): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const from = codeCache === "warm" ? await templateHome() : undefined;
  if (from !== undefined) {
    await linkCodeCache(join(from, "cache", "code"), join(home, "cache", "code"));
  }
  return home;
}

/** Makes `to` (and its parent) mode 0700 and hard-links each build folder's files of `from`. */
async function linkCodeCache(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true, mode: 0o700 });
  for (const build of await readdir(from)) {
    await mkdir(join(to, build), { mode: 0o700 });
    for (const file of await readdir(join(from, build))) {
      await link(join(from, build, file), join(to, build, file));
    }
  }
}

/**
 * Removes `<home>/cache` (the warm code cache {@link makeHome} gave it), for a test whose figure
 * was measured from a cold start (the first run in a fresh home compiles every script it loads).
 */
export async function coldCodeCache(home: string): Promise<void> {
  await rm(join(home, "cache"), { recursive: true, force: true });
}
