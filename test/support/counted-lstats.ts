import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/** Node's `fs` functions that tell whether a path exists, as these counters wrap them. */
type CountedName = "lstatSync" | "existsSync";

/**
 * The paths `fs.lstatSync` (Node's own function, counted; the code under test runs unchanged)
 * was given while `run` ran, and what `run` answered. Node's module object takes the assignment
 * (@types/node declares `lstatSync` a constant); `syncBuiltinESMExports` shows it to ESM imports.
 */
export async function lstatsDuring<T>(
  run: () => T | Promise<T>,
): Promise<{ result: T; seen: string[] }> {
  return pathsGivenDuring(["lstatSync"], run);
}

/**
 * The paths whose existence was asked while `run` ran, in order: those given to `fs.lstatSync`
 * or `fs.existsSync` (each counted as {@link lstatsDuring} counts `lstatSync`).
 */
export async function existenceChecksDuring<T>(
  run: () => T | Promise<T>,
): Promise<{ result: T; seen: string[] }> {
  return pathsGivenDuring(["lstatSync", "existsSync"], run);
}

async function pathsGivenDuring<T>(
  names: readonly CountedName[],
  run: () => T | Promise<T>,
): Promise<{ result: T; seen: string[] }> {
  const seen: string[] = [];
  const nodeFs = fs as unknown as Record<CountedName, (...args: unknown[]) => unknown>;
  const originals = names.map((name) => [name, nodeFs[name]] as const);
  for (const [name, original] of originals) {
    nodeFs[name] = (path: unknown, ...rest: unknown[]) => {
      seen.push(String(path));
      return original(path, ...rest);
    };
  }
  syncBuiltinESMExports();
  try {
    return { result: await run(), seen };
  } finally {
    for (const [name, original] of originals) {
      nodeFs[name] = original;
    }
    syncBuiltinESMExports();
  }
}
