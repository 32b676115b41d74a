/**
 * Helpers for values that were thrown. Every layer imports these from here (the lowest layer), so a
 * thrown value is described the same way on every face.
 */

/** The message of anything thrown: `error.message` for an `Error`, else `String(error)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Node.js system error code of a thrown value (`"ENOENT"`, `"EACCES"`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

/** Whether `error` says nothing is at a path: `ENOENT`, or `ENOTDIR` (a file where a folder was expected). */
export function isMissingFileError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}
