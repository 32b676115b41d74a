/**
 * The sandbox's private `/tmp` (bubblewrap-arguments.ts mounts a fresh memory file system there
 * for each command, gone when it ends) as the model is told of it: a command that wrote, or may
 * have written, there is told that anything it wrote there is gone; one that only read a path
 * there is told that the machine's `/tmp` is not visible in the sandbox. Judged from the
 * command's text.
 */

import { isInside } from "./real-paths.js";
import type { ConfiningPolicy } from "./sandboxed-runner.js";

/** A path under `/tmp` as a command names it (up to a space, quote or shell operator). */
const TEMPORARY_PATH = /(?<![\w.~/-])\/tmp(?:\/[^\s'"`;|&<>()]*)?/g;
/** Other ways to reach the temporary folder: `$TMPDIR` (the sandbox sets it to `/tmp`), `mktemp`. */
const TEMPORARY_USE = /\$\{?TMPDIR\b|\bmktemp\b/;
/** Where a command's text is cut into simple commands: `;`, `&&`, `||`, `|`, `&`, new lines, `(`, `)`, `$(`, backquotes. */
const COMMAND_SEPARATOR = /[;|&\n()`]+|\$\(/;
/** A redirection of output (`>`, `>>`, `>|`, `&>`, `2>`) to a path under `/tmp`. */
const TEMPORARY_REDIRECTION = />[>|]?\s*\/tmp(?![\w.-])/;
/** `VAR=value` words before a command's name. */
const ASSIGNMENTS = /^(?:\s*\w+=\S*)*\s*/;
/**
 * Programs that only read the paths they are given (what they print goes to stdout), so a command
 * of theirs naming `/tmp` without a redirection there wrote nothing in it.
 */
const READERS = new Set(
  (
    "ls cat head tail stat file wc du df test [ readlink realpath tree grep egrep fgrep rg diff " +
    "cmp md5sum sha1sum sha256sum sha512sum xxd od hexdump less more cd pwd echo printf basename dirname"
  ).split(" "),
);

/** How a command used the private `/tmp`: `wrote` when it wrote or may have, `read` when it only read. */
export type TemporaryUse = "wrote" | "read";

/**
 * How `command` uses the sandbox's private `/tmp`: `undefined` when it names no path under `/tmp`
 * outside `roots` (the workspace and added folders, which are mounted again over it when they live
 * there), nor `$TMPDIR` nor `mktemp`; `read` when each simple command naming such a path is run by
 * a {@link READERS} program without a redirection of output there; else `wrote` (`$TMPDIR` and
 * `mktemp` included). Judged from the text, so a path built at run time is missed.
 */
export function privateTemporaryUse(
  command: string,
  roots: readonly string[],
): TemporaryUse | undefined {
  const outside = (text: string) =>
    [...text.matchAll(TEMPORARY_PATH)].some(
      ([path]) => !roots.some((root) => isInside(path, root)),
    );
  if (TEMPORARY_USE.test(command)) {
    return "wrote";
  }
  const naming = command.split(COMMAND_SEPARATOR).filter(outside);
  if (naming.length === 0) {
    return undefined;
  }
  const reads = naming.every((part) => {
    const name = part.replace(ASSIGNMENTS, "").split(/\s/, 1)[0] ?? "";
    return READERS.has(name) && !TEMPORARY_REDIRECTION.test(part);
  });
  return reads ? "read" : "wrote";
}

/**
 * Told to the model after a command that wrote, or may have written, in the private `/tmp`
 * ({@link privateTemporaryUse}), so it does not count on files there in a later command (the
 * README's Sandbox section says the same to the user). Judged from the text, the write may have
 * failed (`echo x > /tmp/folder/file` where `/tmp/folder` is the machine's): the note is true
 * either way, and says why such a folder is missing.
 */
const WROTE_NOTE: Record<ConfiningPolicy, string> = {
  "read-only":
    "Note: in the sandbox each command has its own /tmp, empty when it starts (this machine's files and folders under /tmp are not in it) and removed when it ends: anything this command wrote there is gone, and no later command can read it. Under the read-only sandbox nothing else is writable, so do such work within one command (e.g. `a && b`).",
  "workspace-write":
    "Note: in the sandbox each command has its own /tmp, empty when it starts (this machine's files and folders under /tmp are not in it) and removed when it ends: anything this command wrote there is gone, and no later command can read it. Keep files a later command needs in the workspace.",
};

/**
 * Told to the model after a command that only read a path under the private `/tmp`, so it does
 * not take that path's absence (or an empty `/tmp`) for the machine's; a folder added with
 * `--add-dir` or in the workspace is mounted over the private `/tmp` (bubblewrap-arguments.ts).
 */
const READ_NOTE =
  "Note: in the sandbox /tmp outside the workspace is the command's own, empty /tmp, not this machine's: files there are not visible to sandboxed commands. To read them, the user can add their folder with --add-dir <folder> or put them in the workspace.";

/**
 * The note for a command run under `policy` that used the private `/tmp`
 * ({@link privateTemporaryUse} with `roots`), or `undefined` when it did not.
 */
export function privateTemporaryNote(
  command: string,
  roots: readonly string[],
  policy: ConfiningPolicy,
): string | undefined {
  const use = privateTemporaryUse(command, roots);
  return use === undefined ? undefined : use === "read" ? READ_NOTE : WROTE_NOTE[policy];
}
