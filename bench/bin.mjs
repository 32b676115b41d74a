/**
 * How the bench starts the `turnloop` command: the way users and their editors do, by executing
 * the file itself (the package's `bin`, `dist/cli/turnloop.cjs`, or the ES module entry
 * `dist/cli/main.js`; both executable after `npm run build`), so the Node flags of its first line
 * (`#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2`, see src/cli/main.ts)
 * apply.
 * When node needs flags of its own (`--cpu-prof`), or a build copied aside lost its executable
 * bit, it runs `node <the shebang's flags> <flags> <file>` instead: the same flags either way.
 */

import { accessSync, constants, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The Node flags a file's first line passes (`#!/usr/bin/env [-S] node FLAGS`); none for a file
 * without such a line (a build from before the flag, a wrapper script).
 * @param {string} file
 * @returns {string[]}
 */
export function shebangNodeFlags(file) {
  const firstLine = readFileSync(file, "utf8").split("\n", 1)[0] ?? "";
  const match = /^#!\s*\/usr\/bin\/env\s+(?:-S\s+)?node((?:\s+-\S+)*)\s*$/.exec(firstLine);
  return match?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}

/**
 * The command and arguments that start `file args…` as its users do.
 * @param {string} file The `bin` (or a script with the same first line).
 * @param {string[]} args The command's arguments (`acp`, `-p …`).
 * @param {string[]} [nodeArguments] Extra flags for node, e.g. `--cpu-prof`.
 * @returns {{command: string, args: string[]}}
 */
export function binCommand(file, args, nodeArguments = []) {
  if (nodeArguments.length === 0 && isExecutable(file)) {
    return { command: file, args };
  }
  return {
    command: process.execPath,
    args: [...shebangNodeFlags(file), ...nodeArguments, file, ...args],
  };
}

/** @param {string} file */
function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return readFileSync(file, "utf8").startsWith("#!");
  } catch {
    return false;
  }
}

/**
 * The package's `bin` under `root` (package.json's `bin.turnloop`: `dist/cli/turnloop.cjs`, which
 * answers `--version` itself and imports `dist/cli/main.js` for every other command).
 * @param {string} root
 * @returns {string}
 */
export function packageBin(root) {
  return join(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.turnloop);
}
