import { stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool.js";
import { findFiles, loadSearchPackages, type SearchPackages } from "./gitignore.js";
import {
  BLANK_PATH,
  errorResult,
  hiddenBelow,
  isGivenPath,
  missingPathMessage,
  resolveToolPath,
  runGuarded,
  statIfExists,
  textResult,
} from "./tool-support.js";

/** Paths listed by one call; the rest are counted in a note. */
const MAX_GLOB_RESULTS = 100;
/** Files whose modification time is read at once while sorting. */
const STAT_BATCH_SIZE = 64;

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const globInput = z.lazy(() =>
  z.object({
    pattern: z.string(),
    path: z.string().refine(isGivenPath, BLANK_PATH.folder).optional(),
  }),
);

/** Arguments of {@link globTool}, as Copilot CLI's `glob` takes them. */
export type GlobInput = z.infer<typeof globInput>;

/**
 * `glob {pattern, path?}`: files matching a glob under `path` (default: the working directory),
 * newest first, one per line as `./relative/path` from the working directory (Copilot CLI's
 * format; `../` above it), absolute when the pattern or `path` is absolute, as `grep` names them.
 * Gitignored, `.git` and `node_modules` entries are skipped, hidden (dot) ones unless the pattern names one (gitignore.ts
 * `namesHiddenEntry`), and so are the files the session's path deny rules cover
 * ({@link ToolContext.hidden}).
 */
export const globTool = defineTool<GlobInput>({
  name: "glob",
  description:
    'Find files by glob pattern (e.g. "**/*.ts", "src/**/test_*.py"), newest first. Skips ' +
    "gitignored, .git and node_modules files, and hidden (dot) ones unless the pattern names " +
    'one (".github/**/*.yml", "**/.env*"). path: folder to search (default: working directory).',
  input: globInput,
  kind: "search",
  mutates: false,
  changesNothing: true,
  execute: (input, context) => runGuarded("glob", context.signal, () => globFiles(input, context)),
  scope: (input, cwd) => ({
    title: `Find ${input.pattern}${input.path === undefined ? "" : ` in ${input.path}`}`,
    paths: [resolve(resolveToolPath(cwd, input.path ?? "."), literalFolders(input.pattern))],
  }),
});

async function globFiles(input: GlobInput, context: ToolContext): Promise<ToolResult> {
  const searchRoot = resolveToolPath(context.cwd, input.path ?? ".");
  const rootStats = statIfExists(searchRoot);
  if (rootStats === undefined) {
    return errorResult(missingPathMessage(input.path ?? searchRoot));
  }
  if (!rootStats.isDirectory()) {
    return errorResult(`Path ${input.path} is not a directory.`);
  }
  const { base, rest } = splitStaticBase(
    input.pattern,
    (await loadSearchPackages()).isDynamicPattern,
  );
  const globRoot = resolve(searchRoot, base);
  const globRootStats = statIfExists(globRoot);
  if (!globRootStats?.isDirectory()) {
    return textResult("No files matched the pattern.");
  }
  const hidden = hiddenBelow(context, searchRoot);
  const matches = (await findFiles(globRoot, rest, context.signal)).filter(
    (match) => hidden === undefined || !hidden(join(globRoot, match)),
  );
  if (matches.length === 0) {
    return textResult("No files matched the pattern.");
  }
  const newestFirst = await sortNewestFirst(
    matches.map((match) => join(globRoot, match)),
    context.signal,
  );
  // Named as the search was given, as `grep` names them (trial 43 F5: an `--add-dir` folder's
  // files were `../x` here, absolute there): absolute for an absolute pattern or `path`, else
  // from the working directory (Copilot CLI's `./src/a.ts`; relative to `path`, `./cli/x.ts`
  // named no file).
  const absolute =
    isAbsolute(input.pattern) || (input.path !== undefined && isAbsolute(input.path));
  const shown = newestFirst.slice(0, MAX_GLOB_RESULTS).map((path) => {
    if (absolute) {
      return path;
    }
    const relativePath = relative(context.cwd, path);
    return relativePath.startsWith("..") ? relativePath : `./${relativePath}`;
  });
  if (newestFirst.length > shown.length) {
    shown.push(
      `[Showing the ${shown.length} newest of ${newestFirst.length} files. ` +
        "Use a narrower pattern or path to see the others.]",
    );
  }
  return textResult(shown.join("\n"));
}

/**
 * The folders a pattern names before its first `*` or `?` (`od/**` → `od`, `/tmp/x/*.ts` →
 * `/tmp/x`), at least as deep as where the search starts ({@link splitStaticBase}): the gate
 * judges that folder, so a pattern through a symlink leading outside the workspace asks as `view`
 * and `grep` of it do (trial finding 16). The search never follows links below it.
 */
function literalFolders(pattern: string): string {
  const segments = pattern.split("/");
  const dynamic = segments.findIndex((segment) => /[*?]/.test(segment));
  const folders = segments.slice(0, dynamic === -1 ? segments.length - 1 : dynamic).join("/");
  return folders === "" && isAbsolute(pattern) ? "/" : folders;
}

/**
 * Splits a pattern into its leading literal directories and the glob after them, so that
 * `/abs/dir/**` or `../other/*.ts` is crawled from its own folder rather than from the root.
 */
function splitStaticBase(
  pattern: string,
  isDynamicPattern: SearchPackages["isDynamicPattern"],
): { base: string; rest: string } {
  const segments = pattern.split("/");
  let index = 0;
  while (index < segments.length - 1 && !isDynamicPattern(segments[index] ?? "")) {
    index += 1;
  }
  const base = segments.slice(0, index).join("/");
  return {
    base: base === "" && isAbsolute(pattern) ? "/" : base,
    rest: segments.slice(index).join("/"),
  };
}

/** Sorts absolute paths by modification time, newest first, then by path; unreadable ones last. */
async function sortNewestFirst(paths: string[], signal: AbortSignal): Promise<string[]> {
  const modified = new Map<string, number>();
  for (let start = 0; start < paths.length; start += STAT_BATCH_SIZE) {
    signal.throwIfAborted();
    const batch = paths.slice(start, start + STAT_BATCH_SIZE);
    const times = await Promise.all(
      batch.map((path) =>
        stat(path).then(
          (stats) => stats.mtimeMs,
          () => 0,
        ),
      ),
    );
    batch.forEach((path, index) => {
      modified.set(path, times[index] ?? 0);
    });
  }
  return [...paths].sort((left, right) => {
    const byTime = (modified.get(right) ?? 0) - (modified.get(left) ?? 0);
    if (byTime !== 0) {
      return byTime;
    }
    return left < right ? -1 : left > right ? 1 : 0;
  });
}
