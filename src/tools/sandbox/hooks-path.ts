import { lstatSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { commonFolder, pointedFolder } from "./git-folders.js";
import { isInside, type RealPaths } from "./real-paths.js";

/**
 * The hooks folders that the config of the repository of each `.git` entry in `entries` names
 * with `core.hooksPath` (git-config(1)), as absolute paths, whether they exist or not: husky's
 * `.husky` (husky 4–8) or `.husky/_` (husky 9). git runs the hooks there, later and outside the
 * sandbox, instead of those in `.git/hooks`. Read from the repository's `config` (its common
 * folder's, for a linked worktree) and its `config.worktree`, the last value winning; a relative
 * path is taken from the work tree's top (the `.git` entry's folder: githooks(5) runs hooks
 * there), `~/` from `home`. A folder named `_` brings the folder above it too: husky 9's hooks
 * there run the scripts of that folder (`.husky/pre-commit`). Config files a config includes
 * (`include.path`) are not read.
 */
export function hooksFoldersOf(entries: readonly string[], home: string): string[] {
  const folders = new Set<string>();
  for (const entry of entries) {
    const gitDirectory = gitDirectoryOf(entry);
    if (gitDirectory === undefined) {
      continue;
    }
    const common = commonFolder(gitDirectory) ?? gitDirectory;
    const value = [join(common, "config"), join(gitDirectory, "config.worktree")]
      .map((file) => hooksPathIn(readTextOf(file) ?? ""))
      .reduce((last, next) => next ?? last, undefined);
    if (value === undefined || value === "") {
      continue;
    }
    const folder = value.startsWith("~/")
      ? resolve(home, value.slice(2))
      : resolve(dirname(entry), value);
    folders.add(folder);
    if (basename(folder) === "_") {
      folders.add(dirname(folder));
    }
  }
  return [...folders];
}

/**
 * Whether `path` (absolute) lies in a hooks folder of the nearest repository above it
 * ({@link hooksFoldersOf}; the nearest folder holding a `.git`), so that an edit there is one of
 * what later runs read.
 */
export function isInHooksFolder(path: string, home: string): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const entry = join(folder, ".git");
    if (lstatOf(entry) !== undefined) {
      return hooksFoldersOf([entry], home).some((hooks) => isInside(path, hooks));
    }
    if (dirname(folder) === folder) {
      return false;
    }
  }
}

/**
 * The hooks folders of `entries` ({@link hooksFoldersOf}) that lie in one of `roots` (writable
 * roots, real paths): `existing` to mount read-only over themselves (real paths: a mount follows
 * symbolic links), `missing` for git-guard.ts to remove when a command makes one.
 */
export function hooksFoldersIn(
  roots: readonly string[],
  entries: readonly string[],
  home: string,
  paths: RealPaths,
): { existing: string[]; missing: string[] } {
  const existing: string[] = [];
  const missing: string[] = [];
  for (const folder of hooksFoldersOf(entries, home)) {
    const real = paths.resolve(folder)?.real;
    if (real === undefined && roots.some((root) => isInside(folder, root))) {
      missing.push(folder);
    } else if (real !== undefined && roots.some((root) => isInside(real, root))) {
      existing.push(real);
    }
  }
  return { existing, missing };
}

/** The git folder of a `.git` entry: itself, or the folder a `.git` file names. */
function gitDirectoryOf(entry: string): string | undefined {
  const stats = lstatOf(entry);
  if (stats?.isDirectory()) {
    return entry;
  }
  return stats?.isFile() ? pointedFolder(entry) : undefined;
}

/**
 * The last `core.hooksPath` value in a git config file's `text` (git-config(1), "Syntax"):
 * section and key names are case-insensitive, a value may be quoted (`"…"`, with `\"` and `\\`)
 * and ends at a `#` or `;` outside quotes. `undefined` when none is set.
 */
export function hooksPathIn(text: string): string | undefined {
  let section = "";
  let value: string | undefined;
  for (const rawLine of text.split("\n")) {
    let line = rawLine.trim();
    const header = line.match(/^\[\s*([^\]\s"]+)[^\]]*\](.*)$/);
    if (header !== null) {
      section = (header[1] ?? "").toLowerCase();
      line = (header[2] ?? "").trim();
    }
    const pair = line.match(/^([A-Za-z][\w-]*)\s*=\s*(.*)$/);
    if (section === "core" && pair !== null && pair[1]?.toLowerCase() === "hookspath") {
      value = configValue(pair[2] ?? "");
    }
  }
  return value;
}

/** A config value as git reads it: quotes removed, `\"` `\\` `\t` `\n` unescaped, comment cut. */
function configValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index += 1) {
    const character = raw[index];
    if (character === "\\") {
      const next = raw[index + 1] ?? "";
      value += next === "t" ? "\t" : next === "n" ? "\n" : next;
      index += 1;
    } else if (character === '"') {
      quoted = !quoted;
    } else if (!quoted && (character === "#" || character === ";")) {
      break;
    } else {
      value += character;
    }
  }
  return value.trim();
}

function readTextOf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
