/**
 * The sandbox's private `/tmp` (bubblewrap-arguments.ts mounts a fresh memory file system there
 * for each command, gone when it ends) as the model is told of it: a command that wrote, or may
 * have written, there is told that anything it wrote there is gone; one that only read a path
 * there is told that the machine's `/tmp` is not visible in the sandbox. Which a command did is
 * read from its syntax tree by permissions/temporary-use.ts ({@link TemporaryUseReader}).
 */

import type { ConfiningPolicy } from "./sandboxed-runner.js";

/** How a command used the private `/tmp`: `wrote` when it wrote or may have, `read` when it only read. */
export type TemporaryUse = "wrote" | "read";

/**
 * Tells how a command uses the private `/tmp`, given the folders mounted again over it (the
 * workspace and added folders); `undefined` when it does not use it. The host passes
 * permissions/temporary-use.ts `temporaryUse`, which reads the command's syntax tree.
 */
export type TemporaryUseReader = (
  command: string,
  roots: readonly string[],
) => TemporaryUse | undefined;

/**
 * Told to the model after a command that wrote, or may have written, in the private `/tmp`
 * ({@link TemporaryUseReader}), so it does not count on files there in a later command (the
 * README's Sandbox section says the same to the user). Judged from the command, the write may have
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

/** The note for a command run under `policy` that used the private `/tmp` as `use` tells, if it did. */
export function privateTemporaryNote(
  use: TemporaryUse | undefined,
  policy: ConfiningPolicy,
): string | undefined {
  return use === undefined ? undefined : use === "read" ? READ_NOTE : WROTE_NOTE[policy];
}
