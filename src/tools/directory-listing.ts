import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ALWAYS_SKIPPED_DIRECTORIES, GitignoreFilter } from "./gitignore.js";

/** How many levels a listing shows: the directory's entries and their entries. */
const LISTING_DEPTH = 2;
/** Entries shown before the listing is cut. */
const MAX_LISTED_ENTRIES = 300;

/**
 * Lists `directory` (absolute) two levels deep, one entry per line, relative to it, directories
 * with a trailing `/`, sorted by name with each directory followed by its entries. Hidden and
 * gitignored entries are left out, and so are those `hidden` covers (the session's path deny
 * rules); `.git` and `node_modules` are never entered. Cut after
 * {@link MAX_LISTED_ENTRIES} with a note. Rejects with an `AbortError` on abort.
 */
export async function listDirectory(
  directory: string,
  signal: AbortSignal,
  hidden?: (path: string) => boolean,
): Promise<string> {
  const filter = await GitignoreFilter.forRoot(directory);
  const lines: string[] = [];
  let entryCount = 0;
  const visit = async (absolutePath: string, prefix: string, depth: number): Promise<void> => {
    signal.throwIfAborted();
    const entries = await readdir(absolutePath, { withFileTypes: true }).catch(() => []);
    entries.sort((left, right) => compareNames(left.name, right.name));
    for (const entry of entries) {
      const entryPath = join(absolutePath, entry.name);
      const isDirectory = entry.isDirectory();
      if (
        entry.name.startsWith(".") ||
        hidden?.(entryPath) === true ||
        (await filter.isIgnored(entryPath, isDirectory))
      ) {
        continue;
      }
      entryCount += 1;
      const name = `${prefix}${entry.name}${isDirectory ? "/" : ""}`;
      if (lines.length < MAX_LISTED_ENTRIES) {
        lines.push(name);
      }
      if (isDirectory && depth < LISTING_DEPTH && !ALWAYS_SKIPPED_DIRECTORIES.has(entry.name)) {
        await visit(entryPath, name, depth + 1);
      }
    }
  };
  await visit(directory, "", 1);
  if (entryCount === 0) {
    return "(empty directory)";
  }
  if (entryCount > lines.length) {
    const omitted = entryCount - lines.length;
    const noun = omitted === 1 ? "entry" : "entries";
    lines.push(`[… ${omitted} more ${noun} not shown; view a subdirectory to see more.]`);
  }
  return lines.join("\n");
}

function compareNames(left: string, right: string): number {
  if (left === right) {
    return 0;
  }
  return left < right ? -1 : 1;
}
