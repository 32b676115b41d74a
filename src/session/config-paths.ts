import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { errorCode, makeFolders } from "../events/errors.js";
import { isRelativePathRule } from "../permissions/permission-mode.js";
import { normalAbsolutePath } from "../tools/sandbox/policy.js";
import type { Sourced, SourcedRule } from "./run-config.js";

// Not an ES module import, whose facade loads Node's file streams before the interactive face's
// input box (issue 26; scripts/pi-tui-builtins-direct.mjs has the figures).
const { realpathSync, statSync } = process.getBuiltinModule("node:fs");
const promises = () => process.getBuiltinModule("node:fs").promises;

/**
 * Where the config files are, and whether there is one to read, without their schema: zod, which
 * checks them (config.ts), loads only when a file is there (issue 26: most runs have none, and
 * the interactive face draws its input box after the files are checked).
 */

/**
 * Where the user's and the project's config files are: the project's is in {@link projectFolder},
 * except at the home folder itself, which is never a project: there `project` is the user's file
 * (`~/.turnloop/config.json` is the user's own, read once, never as an untrusted project's).
 * `folder` is `cwd`'s project when the caller found it already (one search a session's opening).
 */
export function configPaths(
  home: string,
  cwd: string,
  folder = projectFolder(cwd),
): { user: string; project: string } {
  const user = join(home, "config.json");
  return {
    user,
    project: homeFolders().includes(folder) ? user : join(folder, ".turnloop", "config.json"),
  };
}

/** The project's files, relative to its folder: its config and its MCP servers. */
const PROJECT_FILES = [join(".turnloop", "config.json"), ".mcp.json"];

/**
 * The project a session in `cwd` works in, absolute: the nearest folder from `cwd` up holding
 * `.git` (a folder, or the file of a git worktree or submodule), else `cwd` itself. Its
 * `.turnloop/config.json` and `.mcp.json` apply in every folder under it, and its trust is
 * recorded under its path (README, "Config files"), as codex reads its project config from the
 * project's root. The search stops below the user's home folder (`os.homedir()`): a home kept in
 * git (dotfiles) is not the project of every folder in it, and its `.turnloop/config.json` is the
 * user's own file. A few `stat` calls, one per folder up to the root.
 */
export function projectFolder(cwd: string): string {
  const start = normalAbsolutePath(cwd);
  const homes = homeFolders();
  for (let folder = start; ; folder = dirname(folder)) {
    if (homes.includes(folder) && folder !== start) {
      return start;
    }
    // Joined as text (`folder` is spelled normally): a run asks this about eight times, and
    // `path.join`'s walk over each folder's characters was a good part of what made V8 optimise
    // Node's path code (bench/notes/rss33.md).
    if (exists(`${folder === "/" ? "" : folder}/.git`)) {
      return folder;
    }
    if (dirname(folder) === folder) {
      return start;
    }
  }
}

/**
 * The home folder as `HOME` spells it (without a trailing `/`) and as the file system does (its
 * links resolved, as the cwd always is: `/home` is a link to `/var/home` on some systems).
 */
function homeFolders(): string[] {
  const home = normalAbsolutePath(homedir());
  try {
    return [home, realpathSync.native(home)];
  } catch {
    return [home];
  }
}

/**
 * `rules` (a run config's, as written, run-config.ts) each with the folder it is read against
 * when it is a relative path rule (`view(secret/**)`: permission-mode.ts `isRelativePathRule`;
 * README, "Permissions"): one of a config file, the user's too, the {@link projectFolder} of
 * `folder`, whose rules apply from every folder of the project; one of a flag (`--allow-tool`,
 * `--deny-tool`), `folder`, the session's, where the user typed it. `folder` is absolute.
 */
export function withRuleAnchors(
  rules: ReadonlyArray<Sourced<string>>,
  folder: string,
): SourcedRule[] {
  const project = projectFolder(folder);
  return rules.map((rule) => {
    if (!isRelativePathRule(rule.value)) {
      return rule;
    }
    const flag = rule.source === "--allow-tool" || rule.source === "--deny-tool";
    return { ...rule, anchor: flag ? folder : project };
  });
}

/**
 * The project files ({@link PROJECT_FILES}) in the folders from `cwd` up to, not including, its
 * {@link projectFolder}: not read, as the project's own apply there; each is named in a warning
 * rather than ignored silently.
 */
export function unreadProjectFiles(cwd: string): string[] {
  const project = projectFolder(cwd);
  const unread: string[] = [];
  for (let folder = resolve(cwd); folder !== project; folder = dirname(folder)) {
    unread.push(...PROJECT_FILES.map((name) => join(folder, name)).filter(exists));
  }
  return unread.map(
    (path) =>
      `${path} is not read: the project is ${project} (it holds .git), whose ${path.endsWith(".mcp.json") ? ".mcp.json" : ".turnloop/config.json"} applies in its subfolders`,
  );
}

/** Whether `path` exists; a path that cannot be looked at counts as absent. */
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** A config file that cannot be used; the message names the file and the field. */
export class ConfigError extends Error {
  override readonly name: string = "ConfigError";
}

/**
 * A session to resume works in a folder that is gone here (removed, or a log imported from
 * another machine): every tool would fail in it, so the session is not opened (host.ts).
 */
export class SessionFolderGoneError extends ConfigError {
  override readonly name = "SessionFolderGoneError";
  constructor(
    readonly sessionId: string,
    readonly folder: string,
  ) {
    super(
      `session ${sessionId} works in ${folder}, which is not an existing directory here; create or restore it to resume the session`,
    );
  }
}

/**
 * Whether reading the config files has anything to check: false only when neither path exists
 * (what `loadConfig` takes for no file). A path that cannot be looked at for another reason
 * (a permission, a file where a folder should be) counts as there, so that reading it reports
 * the error as before.
 */
export function configFilesPresent(home: string, cwd: string): boolean {
  const { user, project } = configPaths(home, cwd);
  return [user, project].some((path) => {
    try {
      statSync(path);
      return true;
    } catch (error) {
      return errorCode(error) !== "ENOENT";
    }
  });
}

/*
 * The record of trusted projects, `$TURNLOOP_HOME/trusted-projects.json`
 * (`{"projects": {"<absolute path>": {...}}}`): one trust per project folder, which lets its
 * `.mcp.json` servers start and every key of its `.turnloop/config.json` apply (README, "Trusted
 * projects"; the keys held before: project-holds.ts). Written by `turnloop mcp trust` and by a
 * yes to a trust question. Here, beside the config paths, so that the faces read it without
 * loading the MCP module (mcp-servers.ts re-exports it).
 */

function trustFile(home: string): string {
  return join(home, "trusted-projects.json");
}

async function readTrusted(home: string): Promise<Record<string, unknown>> {
  try {
    const json: unknown = JSON.parse(await promises().readFile(trustFile(home), "utf8"));
    const projects = (json as { projects?: unknown } | null)?.projects;
    return typeof projects === "object" && projects !== null
      ? (projects as Record<string, unknown>)
      : {};
  } catch {
    // A missing or damaged file trusts nothing.
    return {};
  }
}

/**
 * Whether the user trusted the project of `cwd` ({@link projectFolder}: its MCP servers and its
 * whole config file) as it is now: a trust covers the contents of `.turnloop/config.json` and
 * `.mcp.json` it was given for (their SHA-256) and of the files in the project their MCP servers
 * run (project-file-digests.ts: `sh tools/mcp.sh`), so a change to any, by a model's edit or
 * command or a checkout included, holds the project's keys again until the user trusts it again
 * (direnv's `allow` works the same way); a trust given before such a file was covered (round 3
 * session 34) is asked again. A trust recorded before contents were (round 3 session 11) covers
 * any contents.
 */
export async function isProjectTrusted(home: string, cwd: string): Promise<boolean> {
  return (await projectTrust(home, cwd)).trusted;
}

/** A project's trust: in force, absent, or given for files that changed since (which, and when). */
export interface ProjectTrust {
  trusted: boolean;
  /**
   * The files a trust covers whose contents changed since it was given ({@link PROJECT_FILES}, and
   * those their MCP servers run, relative to the project's folder).
   */
  changed?: string[];
  /** When the trust was given (ISO 8601), as recorded. */
  trustedAt?: string;
}

/**
 * Why a project's files are not applied, for the warnings that say so: `this project is not
 * trusted`, or `.mcp.json changed since this project was trusted on 2026-12-05 05:32 UTC`.
 */
export function untrustedPhrase(trust: ProjectTrust): string {
  if (trust.changed === undefined) {
    return "this project is not trusted";
  }
  const when =
    trust.trustedAt === undefined
      ? ""
      : ` on ${trust.trustedAt.slice(0, 16).replace("T", " ")} UTC`;
  return `${trust.changed.join(" and ")} changed since this project was trusted${when}`;
}

/**
 * The project's trust as {@link isProjectTrusted} reads it, and when it is not in force because
 * files changed since it was given: which of {@link PROJECT_FILES} (`changed`) and when it was
 * given (`trustedAt`, ISO 8601, when recorded). `project` is `cwd`'s {@link projectFolder} when
 * the caller found it already.
 */
export async function projectTrust(
  home: string,
  cwd: string,
  project = projectFolder(cwd),
): Promise<ProjectTrust> {
  const entry = (await readTrusted(home))[project] as { files?: unknown; trustedAt?: unknown };
  if (entry === undefined || entry === null) {
    return { trusted: false };
  }
  const recorded = entry.files;
  if (typeof recorded !== "object" || recorded === null) {
    return { trusted: true };
  }
  const current = await digestsOf(project, cwd, home);
  const changed = Object.entries(current)
    .filter(([name, digest]) => (recorded as Record<string, unknown>)[name] !== digest)
    .map(([name]) => name);
  return changed.length === 0
    ? { trusted: true }
    : {
        trusted: false,
        changed,
        ...(typeof entry.trustedAt === "string" ? { trustedAt: entry.trustedAt } : {}),
      };
}

/**
 * The project folders ({@link projectFolder}) the user answered no about in this process: one
 * trust question per project and run (README, "Trusted projects").
 */
const declinedThisRun = new Set<string>();

/**
 * Asks `ask`, a trust question about the project of `cwd`, unless the user answered no about that
 * project earlier in this process, and records a no for the rest of it: the line question before
 * the interactive screen, the screen's own (a new session, `/new`, `/resume`) and `-p`'s about the
 * project's MCP servers are one question, never asked again after a no.
 * @returns whether it was asked and answered yes.
 */
export async function askTrustOncePerRun(
  cwd: string,
  ask: () => Promise<boolean>,
): Promise<boolean> {
  const project = projectFolder(cwd);
  if (declinedThisRun.has(project)) {
    return false;
  }
  const yes = await ask();
  if (!yes) {
    declinedThisRun.add(project);
  }
  return yes;
}

/**
 * Remembers that the project of `cwd` ({@link projectFolder}) is trusted as its files are now
 * (file mode 0600, written whole then renamed).
 * @returns the project's folder, the one trusted.
 * @throws the file system's error when the home folder or the file cannot be written.
 */
export async function trustProject(home: string, cwd: string): Promise<string> {
  const project = projectFolder(cwd);
  const [projects, files] = await Promise.all([readTrusted(home), digestsOf(project, cwd, home)]);
  projects[project] = {
    mcpServers: true,
    config: true,
    files,
    trustedAt: new Date().toISOString(),
  };
  await writeTrusted(home, projects);
  return project;
}

/**
 * Forgets the trust of the project of `cwd` ({@link projectFolder}), written as
 * {@link trustProject} writes. @returns the project's folder and whether it was trusted (a
 * trust of other contents counts: it is removed too).
 * @throws the file system's error when the file cannot be written.
 */
export async function untrustProject(
  home: string,
  cwd: string,
): Promise<{ project: string; wasTrusted: boolean }> {
  const project = projectFolder(cwd);
  const projects = await readTrusted(home);
  if (!Object.hasOwn(projects, project)) {
    return { project, wasTrusted: false };
  }
  delete projects[project];
  await writeTrusted(home, projects);
  return { project, wasTrusted: true };
}

async function writeTrusted(home: string, projects: Record<string, unknown>): Promise<void> {
  const { writeFile, rename } = promises();
  await makeFolders(home);
  const path = trustFile(home);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ projects }, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** The digests of {@link PROJECT_FILES} and their programs (project-file-digests.ts). */
async function digestsOf(
  project: string,
  cwd: string,
  home: string,
): Promise<Record<string, string>> {
  const { projectFileDigests } = await import("./project-file-digests.js");
  return projectFileDigests(project, cwd, home, PROJECT_FILES);
}
