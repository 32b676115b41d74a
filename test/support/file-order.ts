import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order the suite's files start in, the same on every machine: vitest's own order reads its
 * results cache (longest first), which a clean clone (CI) lacks, so there it runs the largest
 * files by bytes first (vitest 4.1 `BaseSequencer.sort`). This one reads a committed table of
 * each file's duration (test/support/file-durations.json, written from a vitest JSON report by
 * scripts/test-file-durations.mjs) and runs, project by project in name order as vitest does
 * (a worker is kept for the next file only when that file is of the same project, vitest 4.1
 * `Pool.schedule`), files missing from the table first, then the longest first.
 */

/** One file to order: its project's name and its path from the suite's root. */
export interface FileToOrder {
  project: string;
  path: string;
}

/** Each file's duration in milliseconds, by path from the root (`test/cli/mcp.test.ts`). */
export type FileDurations = Readonly<Record<string, number>>;

/**
 * The files in the order to start them: by project name, then files the table lacks (in path
 * order), then the table's longest first (ties in path order). Returns a new array.
 */
export function orderedFiles<File extends FileToOrder>(
  files: readonly File[],
  durations: FileDurations,
): File[] {
  const known = (file: File): number | undefined =>
    Object.hasOwn(durations, file.path) ? durations[file.path] : undefined;
  return [...files].sort((first, second) => {
    if (first.project !== second.project) {
      return first.project < second.project ? -1 : 1;
    }
    const firstDuration = known(first);
    const secondDuration = known(second);
    if (firstDuration === undefined || secondDuration === undefined) {
      if (firstDuration !== secondDuration) {
        return firstDuration === undefined ? -1 : 1;
      }
    } else if (firstDuration !== secondDuration) {
      return secondDuration - firstDuration;
    }
    return first.path < second.path ? -1 : first.path > second.path ? 1 : 0;
  });
}

/**
 * Reads the table at `tablePath`. @throws when the file is missing or is not a JSON object of
 * path → non-negative number, naming the file and the first bad entry.
 */
export function readFileDurations(tablePath: string): FileDurations {
  const parsed: unknown = JSON.parse(readFileSync(tablePath, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${tablePath}: expected an object of test file path → milliseconds`);
  }
  for (const [path, duration] of Object.entries(parsed)) {
    if (typeof duration !== "number" || !Number.isFinite(duration) || duration < 0) {
      throw new Error(`${tablePath}: ${path}'s duration must be milliseconds ≥ 0, not ${duration}`);
    }
  }
  return parsed as FileDurations;
}

const tablePath = fileURLToPath(new URL("./file-durations.json", import.meta.url));

/** vitest's sequencer (`test.sequence.sequencer`) ordering by the committed table. */
export class FileDurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readFileDurations(tablePath);
    const root = this.ctx.config.root;
    const entries = files.map((specification) => ({
      specification,
      project: specification.project.name,
      path: relative(root, specification.moduleId),
    }));
    return orderedFiles(entries, durations).map((entry) => entry.specification);
  }
}
