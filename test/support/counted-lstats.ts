import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/**
 * The paths `fs.lstatSync` (Node's own function, counted; the code under test runs unchanged)
 * was given while `run` ran, and what `run` answered. Node's module object takes the assignment
 * (@types/node declares `lstatSync` a constant); `syncBuiltinESMExports` shows it to ESM imports.
 */
export async function lstatsDuring<T>(
  run: () => T | Promise<T>,
): Promise<{ result: T; seen: string[] }> {
  const seen: string[] = [];
  const nodeFs = fs as { lstatSync: typeof fs.lstatSync };
  const lstatSync = nodeFs.lstatSync;
  nodeFs.lstatSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    seen.push(String(path));
    return (lstatSync as (path: fs.PathLike, ...rest: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.lstatSync;
  syncBuiltinESMExports();
  try {
    return { result: await run(), seen };
  } finally {
    nodeFs.lstatSync = lstatSync;
    syncBuiltinESMExports();
  }
}
