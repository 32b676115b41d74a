import { constants, type Stats } from "node:fs";
import { access, type FileHandle, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorCode } from "../events/errors.js";
import { randomUUID } from "../events/random-id.js";
import { resolveLinks, statIfExists } from "./tool-support.js";

/**
 * The codes of a step of a replace the file system refuses for who we are or where the file is
 * (a bind-mounted file cannot be renamed over: EBUSY), not for what the disk holds.
 */
const REFUSED_CODES = new Set(["EACCES", "EPERM", "EROFS", "EBUSY"]);

/**
 * Writes `bytes` as the whole content of the file at `path` (absolute), keeping what makes the
 * file that file: its permission bits, owner and group, and its refusals.
 *
 * - A file the process may not write (`access(W_OK)`: a `chmod a-w` file for its user; root
 *   passes, as access(2) says) is refused, nothing written: an `Error` reading
 *   `Permission denied: <shownPath>; the file was not changed.` (`Read-only file system: …` on a
 *   read-only mount), as a shell's `>` would be. Trial 41 F2.
 * - Otherwise the bytes go to a temporary file in the same folder, are flushed, and the temporary
 *   file is renamed over the target, so a crash or a full disk leaves the old file or the new one,
 *   never half of each. The temporary file gets the old file's owner and group (root's edit of a
 *   user's file stays the user's, as GNU `sed -i` does; trial 41 F3) and then its mode.
 * - When that rename would change the file's identity, the file is written in place instead
 *   (vim's `backupcopy=auto`): the folder is not writable (trial 41 F4), the owner or group cannot
 *   be given to a new file (a user's group-writable file of another owner), or the rename is
 *   refused (a sticky folder). A crash in the middle of such a write can leave part of the new
 *   text; a full disk is reported as the file system's error. Extended attributes and ACLs are not
 *   looked at (Node.js cannot list them): a replaced file does not keep them.
 * - A file with other hard links is replaced (a copy of its own): the other names keep the old
 *   content, as pnpm's store and `cp -l` backups need (README, "Using it").
 * - When `path` is a symbolic link, the file it points to is written and the link stays a link.
 * - A new file is made by the rename too, with `newFileMode` (default 0666; less the umask); a
 *   folder that refuses it gives `Permission denied: <shownPath>; nothing was written.`
 *
 * `shownPath` is the path as the model gave it: errors never name the temporary file. Rejects with
 * the file system's error for anything else (ENOSPC, EIO …), or an `AbortError` when `signal` is
 * aborted before the file is touched; a temporary file is removed in every case.
 */
export async function writeFileAtomically(
  path: string,
  bytes: Uint8Array,
  signal: AbortSignal,
  shownPath: string = path,
  newFileMode = 0o666,
): Promise<void> {
  const target = resolveLinks(path);
  const existing = statIfExists(target);
  if (existing === undefined) {
    const written = await replaceThroughTemporaryFile(target, bytes, signal, newFileMode);
    if (written !== "written") {
      throw refusal(written.refused, shownPath, "created");
    }
    return;
  }
  await checkWritable(target, shownPath);
  if (await folderWritable(target)) {
    const written = await replaceThroughTemporaryFile(target, bytes, signal, existing);
    if (written === "written") {
      return;
    }
  }
  await writeInPlace(target, bytes, signal, shownPath);
}

/** Throws the shell's words when the process may not write the existing file `target`. */
async function checkWritable(target: string, shownPath: string): Promise<void> {
  try {
    await access(target, constants.W_OK);
  } catch (error) {
    throw refusal(error, shownPath, "changed");
  }
}

/** The shell's words for a write refused for who we are (`Permission denied: <shownPath>`). */
function refusal(error: unknown, shownPath: string, outcome: "changed" | "created"): unknown {
  const what = outcome === "changed" ? "the file was not changed" : "nothing was written";
  const code = errorCode(error);
  if (code === "EROFS") {
    return new Error(`Read-only file system: ${shownPath}; ${what}.`);
  }
  if (code === "EACCES" || code === "EPERM") {
    return new Error(`Permission denied: ${shownPath}; ${what}.`);
  }
  return error;
}

async function folderWritable(target: string): Promise<boolean> {
  try {
    await access(dirname(target), constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes `bytes` to a new file beside `target` and renames it over `target`, giving it the owner,
 * group and mode of `existing` (the file replaced; a number: no file, the new file's mode). `{ refused }` with the error when the
 * file system refused a step for who we are ({@link REFUSED_CODES}) or the owner could not be kept
 * (the temporary file is gone then, `target` untouched); other errors are thrown.
 */
async function replaceThroughTemporaryFile(
  target: string,
  bytes: Uint8Array,
  signal: AbortSignal,
  existing: Stats | number,
): Promise<"written" | { refused: unknown }> {
  const temporaryPath = join(
    dirname(target),
    `.${basename(target)}.${randomUUID().slice(0, 8)}.turnloop-tmp`,
  );
  const mode = typeof existing === "number" ? existing : existing.mode & 0o7777;
  let handle: FileHandle;
  try {
    handle = await open(temporaryPath, "wx", mode);
  } catch (error) {
    if (REFUSED_CODES.has(errorCode(error) ?? "")) {
      return { refused: error };
    }
    throw error;
  }
  let renamed = false;
  try {
    try {
      // The owner first: a file we cannot give the old owner is not written at all.
      if (typeof existing !== "number" && !(await keepIdentity(handle, existing))) {
        return { refused: new Error("the owner and group cannot be kept") };
      }
      await handle.writeFile(bytes, { signal });
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal.throwIfAborted();
    await rename(temporaryPath, target);
    renamed = true;
    return "written";
  } catch (error) {
    if (REFUSED_CODES.has(errorCode(error) ?? "")) {
      return { refused: error };
    }
    throw error;
  } finally {
    if (!renamed) {
      await unlink(temporaryPath).catch(() => undefined);
    }
  }
}

/**
 * Gives the new file `existing`'s owner and group (when they are not ours already: only root, or
 * a member of the group, may) and then its mode: `chown` clears set-user-ID bits, and `open`
 * applied the umask, which may remove bits the old file had. False when the owner and group
 * cannot be given (EPERM; EINVAL for an id a user namespace does not map).
 */
async function keepIdentity(handle: FileHandle, existing: Stats): Promise<boolean> {
  const sameOwner = existing.uid === process.geteuid?.() && existing.gid === process.getegid?.();
  if (!sameOwner) {
    const given = await handle.chown(existing.uid, existing.gid).then(
      () => true,
      () => false,
    );
    if (!given) {
      return false;
    }
  }
  await handle.chmod(existing.mode & 0o7777);
  return true;
}

/**
 * Writes `bytes` over the existing file `target` without replacing it (same inode, owner, group,
 * mode, links): from the start, then cut to their length. Not stopped by `signal` once begun: a
 * half-written file is worse than a finished one.
 */
async function writeInPlace(
  target: string,
  bytes: Uint8Array,
  signal: AbortSignal,
  shownPath: string,
): Promise<void> {
  signal.throwIfAborted();
  let handle: FileHandle;
  try {
    handle = await open(target, "r+");
  } catch (error) {
    throw refusal(error, shownPath, "changed");
  }
  try {
    await handle.writeFile(bytes);
    await handle.truncate(bytes.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
