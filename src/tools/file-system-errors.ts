/**
 * What the model reads when the file system refuses a file tool (`create`, `edit`, `view`):
 * the problem in words, with the path as the tools name it (tool-support.ts `shownPath`) and what
 * did not happen, instead of Node's raw `EEXIST: file already exists, mkdir '…'`, which reads as
 * another problem (trial 43 F4: a `create` under a path whose parent is a file).
 */

import { dirname } from "node:path";
import { errorCode } from "../events/errors.js";
import { shownPath } from "./tool-support.js";

// Not an ES module import (face-config.ts says why).
const { statSync } = process.getBuiltinModule("node:fs");

/**
 * `error`'s problem as a sentence ending in `outcome` (`nothing was created`), or undefined when
 * it is no file-system error with a path this knows: a file where a folder must be (`EEXIST`
 * from `mkdir`, `ENOTDIR`), a folder where a file must be (`EISDIR`), no permission (`EACCES`,
 * `EPERM`), a full disk or quota (`ENOSPC`, `EDQUOT`), a read-only file system (`EROFS`).
 * `cwd` is the session's working directory (absolute).
 */
export function fileSystemProblem(
  error: unknown,
  cwd: string,
  outcome: string,
): string | undefined {
  const code = errorCode(error);
  const { path, syscall } = error as { path?: unknown; syscall?: unknown };
  if (typeof path !== "string") {
    return undefined;
  }
  const shown = shownPath(cwd, path);
  switch (code) {
    case "EEXIST":
    case "ENOTDIR": {
      const file = code === "EEXIST" && syscall !== "mkdir" ? undefined : fileAbove(path);
      return file === undefined
        ? undefined
        : `${shownPath(cwd, file)} is a file, not a folder; ${outcome}.`;
    }
    case "EISDIR":
      return `${shown} is a folder, not a file; ${outcome}.`;
    case "EACCES":
    case "EPERM":
      return `${shown}: permission denied (by the file system); ${outcome}.`;
    case "ENOSPC":
    case "EDQUOT":
      return `no space left on the disk that holds ${shown}; ${outcome}.`;
    case "EROFS":
      return `${shown} is on a read-only file system; ${outcome}.`;
    default:
      return undefined;
  }
}

/** `path` or the nearest folder up from it that exists and is not a folder, if one does. */
function fileAbove(path: string): string | undefined {
  for (let current = path; ; current = dirname(current)) {
    try {
      const stats = statSync(current, { throwIfNoEntry: false });
      if (stats !== undefined) {
        return stats.isDirectory() ? undefined : current;
      }
    } catch {
      // ENOTDIR: a file is further up.
    }
    if (dirname(current) === current) {
      return undefined;
    }
  }
}
