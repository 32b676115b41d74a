/**
 * What a run of the bundled CLI loaded, from the file test/support/module-recorder.mjs writes
 * (issue 26): each bundle file read stands for the source modules bundled into it, as
 * `dist/cli/chunks/inputs.json` lists them (scripts/bundle.mjs); each script of
 * `dist/cli/scripts/` (scripts/code-cache-scripts.mjs) for those of the file it was made from.
 */

import { readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CLI_PATH } from "./cli.js";

/** What each file of the bundled CLI holds: its path under `dist/cli/` → source modules. */
function bundledFiles(): Record<string, string[]> {
  return JSON.parse(readFileSync(join(dirname(CLI_PATH), "chunks", "inputs.json"), "utf8"));
}

/**
 * The unique modules named by `urls` (the recorder's lines): the source modules of each bundle
 * file, and the URL of each other module (Node's own, packages outside the bundle).
 */
export function sourceModules(urls: readonly string[]): string[] {
  const bundled = bundledFiles();
  return [
    ...new Set(
      urls.flatMap((url) => {
        if (!url.startsWith("file:")) {
          return [url];
        }
        // A script of `dist/cli/scripts/` holds what the ES module file at the same place does.
        const file = relative(dirname(CLI_PATH), fileURLToPath(url)).replace(/^scripts\//, "");
        return bundled[file] ?? [url];
      }),
    ),
  ];
}

/** Whether `url` (a recorder's line) is a file of the bundled CLI (`dist/cli/`). */
export function inBundle(url: string): boolean {
  return url.startsWith(`${pathToFileURL(dirname(CLI_PATH)).href}/`);
}

/**
 * The modules named by `urls` (the recorder's lines) that were loaded from outside the bundle,
 * each once: Node's own (`node:fs`), and any file outside `dist/cli/`. Each is loaded apart, where
 * a source module inside a bundle file costs its bytes alone (test/cli/modules-loaded.test.ts).
 */
export function modulesOutsideBundle(urls: readonly string[]): string[] {
  return [...new Set(urls.filter((url) => !url.startsWith("--") && !inBundle(url)))];
}

/** The bytes of the files at `urls` (`file:` URLs, each counted as given), together. */
export function bytesOf(urls: readonly string[]): number {
  return urls.reduce((total, url) => total + statSync(fileURLToPath(url)).size, 0);
}
