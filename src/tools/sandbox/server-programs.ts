/**
 * What the stdio MCP servers of turnloop's config files run from the disk: files turnloop
 * executes later, outside any sandbox, when a session starts. A trust covers their contents
 * (session/config-paths.ts `trustProject`), the sandbox keeps those in a writable root read-only
 * for commands (sandboxed-runner.ts), and permission mode `auto` asks about an edit of one
 * (permissions/later-runs.ts `laterRunReasonOf`), as `.mcp.json` itself is
 * kept (README, "Trusted projects" and "Sandbox"). Read from the files' text alone, without the
 * MCP module's checks: an entry that is not a stdio server (`command`) names nothing. Loaded at
 * the first sandboxed command or the first edit `auto` judges, not at start-up.
 */

import { type BigIntStats, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_FILE_MAX_BYTES, readProjectFile } from "../project-file.js";
import { isInside } from "./real-paths.js";

/** The config files of a project folder whose `mcpServers` turnloop starts, relative to it. */
export const SERVER_CONFIG_FILES: readonly string[] = [
  ".mcp.json",
  join(".turnloop", "config.json"),
];

/** The user's files in `TURNLOOP_HOME` whose `mcpServers` turnloop starts. */
export const USER_SERVER_CONFIG_FILES: readonly string[] = ["mcp.json", "config.json"];

/** Largest config file read for its servers, in bytes (a config file is a few KiB). */
const MAX_CONFIG_BYTES = CONFIG_FILE_MAX_BYTES;

/** A stdio server entry as a file writes it: what it runs, and from which folder. */
export interface StdioEntry {
  command: string;
  args: string[];
  cwd?: string;
}

/**
 * A session's view of the config files it looked at (session/agent-settings.ts makes one per
 * session): by absolute path, each file's identity when it was last read (device, inode, size,
 * modification and change times in ns, from one `stat`) and its stdio entries then. A file
 * whose identity changed (an edit, a replacement, a removal) is read again, so an edit of
 * `.mcp.json` counts at the next look; one that did not change is not opened.
 */
export type ServerConfigView = Map<string, { identity: string; entries: StdioEntry[] }>;

/**
 * The files the stdio servers of `configFiles` (absolute paths; missing, unreadable, not JSON:
 * none) run, as absolute paths, links not resolved, without repeats: a `command` that holds a
 * `/` (`./bin/server`, `tools/mcp.sh`), whether it exists or not, and each argument that names
 * an existing regular file (`sh tools/mcp.sh`, `node server/index.js`, `python3 mcp.py`; an
 * option such as `--port`, a URL or a `~/` path is no name), each read against every one of
 * `folders` (a server runs in the session's folder, or the `cwd` its entry gives, taken from it).
 * What such a file loads in turn (a script's imports, `npx`'s packages) is not followed.
 */
export function serverProgramPaths(
  configFiles: readonly string[],
  folders: readonly string[],
  view: ServerConfigView = new Map(),
): string[] {
  const paths = new Set<string>();
  for (const entry of configFiles.flatMap((file) => stdioEntriesIn(file, view))) {
    for (const folder of folders) {
      const base = entry.cwd === undefined ? folder : resolve(folder, entry.cwd);
      if (entry.command.includes("/") && !entry.command.startsWith("~")) {
        paths.add(resolve(base, entry.command));
      }
      for (const argument of entry.args.filter(isPathWord)) {
        const path = resolve(base, argument);
        if (isRegularFile(path)) {
          paths.add(path);
        }
      }
    }
  }
  return [...paths];
}

/**
 * The {@link serverProgramPaths} that lie in one of `roots` (absolute), for a command run in
 * `cwd`: those of the {@link SERVER_CONFIG_FILES} of each root's project (the root and every
 * folder above it up to the nearest that holds `.git`, as session/config-paths.ts
 * `projectFolder` finds it) and of the user's {@link USER_SERVER_CONFIG_FILES} in
 * `turnloopHome`, read against `cwd` and each project folder. A few `stat` calls a root, a read
 * of each config file there is.
 */
export function serverProgramsIn(
  roots: readonly string[],
  cwd: string,
  turnloopHome: string | undefined,
  view?: ServerConfigView,
): string[] {
  const folders = new Set<string>();
  for (const root of roots) {
    for (const folder of foldersUpToRepository(root)) {
      folders.add(folder);
    }
  }
  const configFiles = [
    ...[...folders].flatMap((folder) => SERVER_CONFIG_FILES.map((name) => join(folder, name))),
    ...(turnloopHome === undefined
      ? []
      : USER_SERVER_CONFIG_FILES.map((name) => join(turnloopHome, name))),
  ];
  return serverProgramPaths(configFiles, [cwd, ...folders], view).filter((path) =>
    roots.some((root) => isInside(path, root)),
  );
}

/**
 * Whether `path` (absolute) is a file an MCP server runs: one of {@link serverProgramsIn} its own
 * folder, the config files of its project and of `turnloopHome` (absent: none of the user's)
 * read through `view` (absent: each read now).
 */
export function isServerProgram(
  path: string,
  turnloopHome: string | undefined,
  view?: ServerConfigView,
): boolean {
  const folder = dirname(path);
  return serverProgramsIn([folder], folder, turnloopHome, view).includes(path);
}

/** `folder` and those above it up to the nearest that holds a `.git`; `folder` alone when none does. */
function foldersUpToRepository(folder: string): string[] {
  const folders: string[] = [];
  for (let current = folder; ; current = dirname(current)) {
    folders.push(current);
    if (exists(join(current, ".git"))) {
      return folders;
    }
    if (dirname(current) === current) {
      return [folder];
    }
  }
}

/**
 * The stdio server entries of the `mcpServers` object of the JSON file at `path` (missing, not a
 * regular file, larger than {@link MAX_CONFIG_BYTES}, unreadable, not JSON: none), as `view`
 * last read them when the file has not changed since (see {@link ServerConfigView}).
 */
function stdioEntriesIn(path: string, view: ServerConfigView): StdioEntry[] {
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    stats = undefined;
  }
  if (stats === undefined || !stats.isFile() || stats.size > MAX_CONFIG_BYTES) {
    view.delete(path);
    return [];
  }
  const identity = [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
  const known = view.get(path);
  if (known?.identity === identity) {
    return known.entries;
  }
  // The one reader of files a repository names: a FIFO or device put there after the `stat` is
  // refused on the open descriptor, never read (project-file.ts).
  const file = readProjectFile(path, { maxBytes: MAX_CONFIG_BYTES, overLimit: "refuse" });
  const entries = entriesOfText(file.kind === "read" ? file.bytes.toString("utf8") : undefined);
  view.set(path, { identity, entries });
  return entries;
}

/** The stdio server entries of a config file's `text` (not JSON: none). */
function entriesOfText(text: string | undefined): StdioEntry[] {
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return [];
  }
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== "object" || servers === null) {
    return [];
  }
  return Object.values(servers).flatMap((value: unknown) => {
    const entry = (typeof value === "object" && value !== null ? value : {}) as Record<
      string,
      unknown
    >;
    if (typeof entry.command !== "string") {
      return [];
    }
    const args = Array.isArray(entry.args)
      ? entry.args.filter((word): word is string => typeof word === "string")
      : [];
    const cwd = [entry.cwd, entry.workingDirectory].find((each) => typeof each === "string");
    return [{ command: entry.command, args, ...(typeof cwd === "string" ? { cwd } : {}) }];
  });
}

/** Whether a server's argument may name a file: no option, URL, `~/` path or empty word. */
function isPathWord(word: string): boolean {
  return word !== "" && !word.startsWith("-") && !word.startsWith("~") && !word.includes("://");
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
