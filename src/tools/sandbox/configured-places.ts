import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readProjectFile } from "../project-file.js";
import { isInside } from "./real-paths.js";

/**
 * The places a repository's config sends git to, besides its `.git` folder: the hooks folder
 * `core.hooksPath` names (git-config(1)), where git runs hooks instead of `.git/hooks` (husky's
 * `.husky`, husky 9's `.husky/_`), and config files `include.path` and `includeIf.<condition>.path`
 * name (git-config(1), "Includes"), read as config whatever the condition is.
 */
export interface ConfiguredPlace {
  path: string;
  kind: "hooks" | "include";
}

/** How deep git follows includes (git's config.c, `MAX_INCLUDE_DEPTH`). */
const INCLUDE_DEPTH = 10;

/**
 * Where git finds the user's own config, from the environment turnloop runs in (git-config(1),
 * "FILES"): `home` (`HOME`: `~/.gitconfig`, and `~/` in a value) and `configHome`
 * (`XDG_CONFIG_HOME` when set and not empty, absolute: git then reads
 * `$XDG_CONFIG_HOME/git/config` instead of `~/.config/git/config`). {@link gitUserOf} makes one.
 */
export interface GitUser {
  home: string;
  configHome?: string;
}

/**
 * The {@link GitUser} of a sandbox's `home` and `configHome` (`XDG_CONFIG_HOME`) for commands
 * started in `cwd`: git takes a relative `XDG_CONFIG_HOME` from the folder it runs in.
 */
export function gitUserOf(home: string, configHome: string | undefined, cwd: string): GitUser {
  return configHome === undefined || configHome === ""
    ? { home }
    : { home, configHome: resolve(cwd, configHome) };
}

/** The system's and the user's config files, in git's order (git-config(1), "FILES"). */
function userConfigFiles({ home, configHome }: GitUser): string[] {
  const xdg = join(configHome ?? join(home, ".config"), "git/config");
  return ["/etc/gitconfig", xdg, join(home, ".gitconfig")];
}

/**
 * The {@link ConfiguredPlace}s of the repository of each `.git` entry in `entries`, as absolute
 * paths, whether they exist or not. Read as git reads its config (git-config(1), "FILES"): the
 * system's (`/etc/gitconfig`), the user's ({@link GitUser}: `$XDG_CONFIG_HOME/git/config` or
 * `~/.config/git/config`, then `~/.gitconfig`), then the repository's `config` (its common folder's, for a linked worktree) and its
 * `config.worktree`, each with the files it includes, as deep as git follows them; the last
 * `core.hooksPath` wins (an included file's counted after its including file's). A relative hooks
 * path is taken from the work tree's top (the `.git` entry's folder: githooks(5) runs hooks
 * there), a relative include from the including file's folder, `~/` from `home`. A hooks folder
 * named `_` brings the folder above it too: husky 9's hooks there run the scripts of that folder
 * (`.husky/pre-commit`).
 */
export function configuredPlacesOf(entries: readonly string[], user: GitUser): ConfiguredPlace[] {
  const { home } = user;
  const places = new Map<string, ConfiguredPlace>();
  const add = (path: string, kind: ConfiguredPlace["kind"]) => places.set(path, { path, kind });
  const expand = (value: string, base: string) =>
    value.startsWith("~/") ? resolve(home, value.slice(2)) : resolve(base, value);
  const include = (path: string) => add(path, "include");
  const read = (files: readonly string[], hooksPath: string | undefined) => {
    const seen = new Set<string>();
    return files.reduce(
      (last, file) => readConfigFile(file, expand, include, seen) ?? last,
      hooksPath,
    );
  };
  const userHooksPath = read(userConfigFiles(user), undefined);
  for (const entry of entries) {
    const gitDirectory = gitDirectoryOf(entry);
    if (gitDirectory === undefined) {
      continue;
    }
    const common = commonFolder(gitDirectory) ?? gitDirectory;
    const repositoryConfig = [join(common, "config"), join(gitDirectory, "config.worktree")];
    const hooksPath = read(repositoryConfig, userHooksPath);
    if (hooksPath !== undefined && hooksPath !== "") {
      const folder = expand(hooksPath, dirname(entry));
      add(folder, "hooks");
      if (basename(folder) === "_") {
        add(dirname(folder), "hooks");
      }
    }
  }
  return [...places.values()];
}

/**
 * Reads one git config `file` and the files it includes, as deep as {@link INCLUDE_DEPTH} (each
 * given to `include`; one already in `seen`, the files read for this chain, is not read again:
 * a cycle); the last `core.hooksPath` among them, or undefined.
 */
function readConfigFile(
  file: string,
  expand: (value: string, base: string) => string,
  include: (path: string) => void,
  seen: Set<string>,
  depth = 0,
): string | undefined {
  seen.add(file);
  const values = configValuesIn(readTextOf(file) ?? "");
  let hooksPath = values.hooksPath;
  for (const value of values.includes) {
    const path = value === "" ? undefined : expand(value, dirname(file));
    if (path === undefined || seen.has(path) || depth >= INCLUDE_DEPTH) {
      continue;
    }
    include(path);
    hooksPath = readConfigFile(path, expand, include, seen, depth + 1) ?? hooksPath;
  }
  return hooksPath;
}

/**
 * Whether `path` (absolute) lies in a {@link ConfiguredPlace} of the nearest repository above it
 * (the nearest folder holding a `.git`: its hooks folder, a config file it includes), so that an
 * edit there is one of what later runs read.
 */
export function isInConfiguredPlace(path: string, user: GitUser): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const entry = join(folder, ".git");
    if (lstatOf(entry) !== undefined) {
      return configuredPlacesOf([entry], user).some((place) => isInside(path, place.path));
    }
    if (dirname(folder) === folder) {
      return false;
    }
  }
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
 * The last `core.hooksPath` value and every `include.path` and `includeIf.<condition>.path` value
 * in a git config file's `text` (git-config(1), "Syntax"): section and key names are
 * case-insensitive, a value may be quoted (`"…"`, with `\"` and `\\`) and ends at a `#` or `;`
 * outside quotes.
 */
function configValuesIn(text: string): { hooksPath: string | undefined; includes: string[] } {
  let section = "";
  let hooksPath: string | undefined;
  const includes: string[] = [];
  for (const rawLine of text.split("\n")) {
    let line = rawLine.trim();
    const header = line.match(/^\[\s*([^\]\s"]+)[^\]]*\](.*)$/);
    if (header !== null) {
      section = (header[1] ?? "").toLowerCase();
      line = (header[2] ?? "").trim();
    }
    const pair = line.match(/^([A-Za-z][\w-]*)\s*=\s*(.*)$/);
    const key = pair?.[1]?.toLowerCase();
    if (section === "core" && key === "hookspath") {
      hooksPath = configValue(pair?.[2] ?? "");
    } else if ((section === "include" || section === "includeif") && key === "path") {
      includes.push(configValue(pair?.[2] ?? ""));
    }
  }
  return { hooksPath, includes };
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

/** The real path of the folder a `.git` file names (`gitdir: <path>`, relative to the file's folder). */
export function pointedFolder(pointer: string): string | undefined {
  const line = readTextOf(pointer)
    ?.split("\n")[0]
    ?.match(/^gitdir: (.+)$/)?.[1];
  return line === undefined ? undefined : realFolderOf(resolve(dirname(pointer), line.trim()));
}

/** A linked worktree's main git folder: its `commondir` file, relative to `folder`. */
export function commonFolder(folder: string): string | undefined {
  const common = readTextOf(join(folder, "commondir"))?.trim();
  return common === undefined || common === "" ? undefined : realFolderOf(resolve(folder, common));
}

/**
 * The most of a git file (a config file, a `.git` file, `commondir`) read: 16 MiB, far above any
 * real one (git itself sets no bound); a longer one is read as missing.
 */
const GIT_FILE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The text of the git file at `path`, or undefined when nothing is there or it cannot be read.
 * A repository (or a command run in it) controls these files, so they are read by the one reader
 * of such files (tools/project-file.ts `readProjectFile`): only a regular file, opened with
 * `O_NONBLOCK` and judged by `fstat` on the open descriptor, to a bound; a FIFO, a device or a
 * folder there is refused at once, never read on the main thread (a FIFO blocked it for good,
 * and with it every session of a server). Read wherever a link leads, as git reads it.
 */
export function readTextOf(path: string): string | undefined {
  const file = readProjectFile(path, { maxBytes: GIT_FILE_MAX_BYTES, overLimit: "refuse" });
  return file.kind === "read" ? file.bytes.toString("utf8") : undefined;
}

function realFolderOf(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return lstatOf(real)?.isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** What `path` itself is (a link is not followed), or undefined when it is not there. */
export function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
