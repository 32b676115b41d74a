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

/**
 * `JSON.parse`'s complaint about `text` with the line and column (1-based) it points at, instead
 * of a byte position: `line 5, column 3: Expected ',' or '}' after property value`.
 */
export function jsonSyntaxMessage(text: string, error: unknown): string {
  const message = errorMessage(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const offset =
    position !== undefined
      ? Number(position)
      : /end of (JSON )?(data|input)/i.test(message)
        ? text.length
        : undefined;
  const reason = message
    .replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, "")
    .replace(/^JSON\.parse: /, "");
  if (offset === undefined) {
    return reason;
  }
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}: ${reason}`;
}
