import { stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type ignore from "ignore";
import type { Ignore } from "ignore";
import type { glob, isDynamicPattern } from "tinyglobby";
import { CONFIG_FILE_MAX_BYTES, readProjectFile } from "./project-file.js";

/** Directories no search descends into, ignored or not. */
export const ALWAYS_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** The packages the searches use: `ignore` (`.gitignore` rules) and `tinyglobby` (with `fdir`). */
export interface SearchPackages {
  ignore: typeof ignore;
  glob: typeof glob;
  isDynamicPattern: typeof isDynamicPattern;
}

let searchPackages: Promise<SearchPackages> | undefined;

/**
 * Loads {@link SearchPackages} on a search's first call (`glob`, `grep`'s JavaScript search, a
 * directory listing), not with every session: a run that does not search neither compiles nor
 * runs them (≈ 38 KB of bundled code; its first model request comes 1–2 ms of CPU sooner, issue
 * 26, bench/notes/targets.md, "box lane … session 9"). Later calls get the same promise.
 */
export function loadSearchPackages(): Promise<SearchPackages> {
  searchPackages ??= Promise.all([import("ignore"), import("tinyglobby")]).then(
    ([ignorePackage, tinyglobby]) => ({
      ignore: ignorePackage.default,
      glob: tinyglobby.glob,
      isDynamicPattern: tinyglobby.isDynamicPattern,
    }),
  );
  return searchPackages;
}

/**
 * Answers "would git ignore this path?" for paths under one root, from the `.gitignore` files of
 * the enclosing work tree (from the nearest ancestor holding `.git`, or from the root itself when
 * there is none) and of every directory below. Rules are read lazily and cached. Unlike ripgrep,
 * the global excludes file and `.git/info/exclude` are not read.
 */
export class GitignoreFilter {
  private readonly rulesByDirectory = new Map<string, Promise<Ignore | undefined>>();

  private constructor(private baseDirectory: string) {}

  /**
   * Builds a filter for paths under `root` (absolute). When `root` itself lies in an ignored
   * directory (the caller asked for it explicitly), the rules above `root` are dropped.
   */
  static async forRoot(root: string): Promise<GitignoreFilter> {
    const workTree = await findGitWorkTree(root);
    const filter = new GitignoreFilter(workTree ?? root);
    if (workTree !== undefined && workTree !== root && (await filter.isIgnored(root, true))) {
      filter.baseDirectory = root;
    }
    return filter;
  }

  /** Whether `absolutePath` is ignored; paths outside the filter's tree never are. */
  async isIgnored(absolutePath: string, isDirectory: boolean): Promise<boolean> {
    const relativePath = relative(this.baseDirectory, absolutePath);
    if (relativePath === "" || relativePath.startsWith("..") || isAbsolute(relativePath)) {
      return false;
    }
    const segments = relativePath.split(sep);
    let ignored = false;
    let directory = this.baseDirectory;
    for (const [index, segment] of segments.entries()) {
      const rules = await this.rulesFor(directory);
      if (rules) {
        const suffix = isDirectory ? "/" : "";
        const verdict = rules.test(`${segments.slice(index).join("/")}${suffix}`);
        // A deeper .gitignore can re-include what a shallower one excluded, as in git.
        if (verdict.ignored) {
          ignored = true;
        } else if (verdict.unignored) {
          ignored = false;
        }
      }
      directory = join(directory, segment);
    }
    return ignored;
  }

  /**
   * The rules of `directory`'s `.gitignore`, read by the reader of files a repository names
   * (project-file.ts `readProjectFile`: a regular file of at most 1 MiB, `O_NONBLOCK`, judged by
   * `fstat` on the open descriptor); none when it is missing or refused. A FIFO there held a
   * thread of Node's pool for good, and the search with it; `-> /dev/zero` was read to 2 GiB.
   */
  private rulesFor(directory: string): Promise<Ignore | undefined> {
    let rules = this.rulesByDirectory.get(directory);
    if (rules === undefined) {
      const file = readProjectFile(join(directory, ".gitignore"), {
        maxBytes: CONFIG_FILE_MAX_BYTES,
        overLimit: "refuse",
      });
      rules =
        file.kind === "read"
          ? loadSearchPackages().then((packages) => packages.ignore().add(file.bytes.toString()))
          : Promise.resolve(undefined);
      this.rulesByDirectory.set(directory, rules);
    }
    return rules;
  }
}

async function findGitWorkTree(start: string): Promise<string | undefined> {
  let directory = start;
  for (;;) {
    const found = await stat(join(directory, ".git")).then(
      () => true,
      () => false,
    );
    if (found) {
      return directory;
    }
    const parent = dirname(directory);
    if (parent === directory) {
      return undefined;
    }
    directory = parent;
  }
}

/**
 * Whether a glob names a hidden (dot) entry itself: one of its segments starts with `.` and is
 * not `.` or `..` (`.github/` and below, `.env*` at any depth, `src/.eslintrc`). A search skips
 * hidden entries unless its glob names one, as the `grep` and `glob` tools' descriptions say.
 */
export function namesHiddenEntry(pattern: string): boolean {
  return pattern.split("/").some((segment) => segment.startsWith(".") && !/^\.\.?$/.test(segment));
}

/**
 * Files under `root` (absolute directory) matching the glob `pattern` (relative to `root`),
 * skipping `.git`, `node_modules`, gitignored paths and hidden entries (unless the pattern names
 * one: {@link namesHiddenEntry}). Answers paths relative to
 * `root` with `/` separators, in no particular order. Rejects with an `AbortError` on abort.
 */
export async function findFiles(
  root: string,
  pattern: string,
  signal: AbortSignal,
): Promise<string[]> {
  const [filter, { glob }] = await Promise.all([
    GitignoreFilter.forRoot(root),
    loadSearchPackages(),
  ]);
  const matches = await glob(pattern, {
    cwd: root,
    dot: namesHiddenEntry(pattern),
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: false,
    ignore: [...ALWAYS_SKIPPED_DIRECTORIES].map((name) => `**/${name}/**`),
    signal,
  });
  signal.throwIfAborted();
  const kept: string[] = [];
  for (const match of matches) {
    if (!(await filter.isIgnored(join(root, match), false))) {
      kept.push(match);
    }
  }
  return kept;
}
