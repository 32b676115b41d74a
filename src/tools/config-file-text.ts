import { statSync } from "node:fs";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import { CONFIG_FILE_MAX_BYTES, readProjectFile } from "./project-file.js";
import { withoutByteOrderMark } from "./text-decoding.js";

/*
 * Config files as text (`.turnloop/config.json`, `.mcp.json`, the user's, a `--mcp-config`
 * file), read by project-file.ts without a leading byte order mark (trial 42 F4: it was refused as
 * "line 1, column 1: Unexpected character"), and what a JSON parse of one says is wrong, in words
 * that quote none of it.
 */

/** A config file's text, or the problem that names it (its path first). */
export type FileText = { text: string; problem?: undefined } | { problem: string };

/**
 * A config file (`.turnloop/config.json`, `.mcp.json`, the user's) as UTF-8 text, by
 * {@link readProjectFile}: a regular file of at most {@link CONFIG_FILE_MAX_BYTES}; with
 * `projectFolder` (a project's file) lying in it and out of the hidden places, `turnloopHome`
 * hidden too. Undefined: nothing there.
 */
export function readConfigFileText(
  path: string,
  projectFolder: string | undefined,
  turnloopHome?: string,
): FileText | undefined {
  const file = readProjectFile(path, {
    maxBytes: CONFIG_FILE_MAX_BYTES,
    overLimit: "refuse",
    limitName: "1 MiB a config file may hold",
    ...(projectFolder === undefined
      ? {}
      : {
          project: {
            folder: projectFolder,
            ...(turnloopHome === undefined ? {} : { turnloopHome }),
          },
        }),
  });
  switch (file.kind) {
    case "missing":
      return undefined;
    case "refused":
      return { problem: `${path} ${file.reason}` };
    case "read":
      return utf8Text(path, file.bytes);
  }
}

/**
 * `bytes` of the file at `path` as UTF-8 text, or the problem naming it when they are UTF-16
 * (a byte order mark FF FE or FE FF, or a NUL byte among the first two: Windows PowerShell 5's
 * `>` and `Out-File` write UTF-16LE), which read as UTF-8 was "not valid JSON: line 1, column 1".
 */
function utf8Text(path: string, bytes: Buffer): FileText {
  const [first, second] = bytes;
  const utf16 =
    (first === 0xff && second === 0xfe) ||
    (first === 0xfe && second === 0xff) ||
    (bytes.length >= 2 && (first === 0 || second === 0));
  return utf16
    ? { problem: `${path} is UTF-16 text: a config file must be UTF-8 (save it as UTF-8)` }
    : { text: withoutByteOrderMark(bytes.toString("utf8")) };
}

/**
 * A file the user named (`--mcp-config`) as UTF-8 text: read as given (a pipe of `<(…)` too),
 * off the main thread; a missing one found by a `stat` that builds no error (`throwIfNoEntry`;
 * Node's `ENOENT` error of a failed `readFile` cost about 1 % of a `-p` run's instructions,
 * bench/notes/targets.md, round 3 session 18). Undefined: nothing there.
 */
export async function readNamedFileText(path: string): Promise<FileText | undefined> {
  try {
    if (statSync(path, { throwIfNoEntry: false }) === undefined) {
      return undefined;
    }
    const { readFile } = await import("node:fs/promises");
    return utf8Text(path, await readFile(path));
  } catch (error) {
    return isMissingFileError(error) ? undefined : { problem: `${path}: ${errorMessage(error)}` };
  }
}

/**
 * `JSON.parse`'s complaint about `text` with the line and column (1-based) it points at, instead
 * of a byte position: `line 5, column 3: Expected ',' or '}' after property value`. Never a
 * word of `text` itself: V8 quotes the start of the text when it names no position (`Unexpected
 * token 'P', "PRIVATE-KE"... is not valid JSON`), and the text may be a secret a link led to
 * (a trial's finding), so that complaint becomes `line 1, column 1: Unexpected character`, the
 * place found as the longest start of `text` that is still the start of some JSON value.
 */
export function jsonSyntaxMessage(text: string, error: unknown): string {
  const message = errorMessage(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const quoting = /^Unexpected token\b/.test(message) && position === undefined;
  const offset =
    position !== undefined
      ? Number(position)
      : quoting
        ? validJsonPrefixLength(text)
        : /end of (JSON )?(data|input)/i.test(message)
          ? text.length
          : undefined;
  const reason = quoting
    ? "Unexpected character"
    : message
        .replace(/ (?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?/, "")
        .replace(/^JSON\.parse: /, "")
        // Any other quoted piece of the text V8 may add: left out, never shown.
        .replace(/,? ?"(?:[^"\\]|\\.)*"(?:\.\.\.)? is not valid JSON$/, "");
  if (offset === undefined) {
    return reason;
  }
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}: ${reason}`;
}

/**
 * How much of `text` is the start of some JSON value: the longest prefix `JSON.parse` takes, or
 * fails on only for ending early (a binary search: the starts of a valid start are valid). A
 * literal cut short (`tru`) counts as invalid, so the place found may be up to 4 characters early.
 */
function validJsonPrefixLength(text: string): number {
  const endsEarly = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (error) {
      // At the end V8 says so, or names the end as the place (`Expected ',' or '}' … at position 7`).
      const message = errorMessage(error);
      const at = /at position (\d+)/.exec(message)?.[1];
      return at === undefined ? /end of (JSON )?(data|input)/i.test(message) : Number(at) >= length;
    }
  };
  let valid = 0;
  let invalid = text.length;
  while (invalid - valid > 1) {
    const middle = Math.floor((valid + invalid) / 2);
    if (endsEarly(middle)) {
      valid = middle;
    } else {
      invalid = middle;
    }
  }
  return valid;
}
