import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomUUID } from "../events/random-id.js";
import { resolveLinks, statIfExists } from "./tool-support.js";

/**
 * Replaces the file at `path` (absolute) with `bytes` so that a crash or a full disk leaves either
 * the old file or the new one, never half of each: the bytes go to a temporary file in the same
 * folder (same file system, so the rename is atomic), are flushed, and the temporary file is
 * renamed over the target. An existing file keeps its permission bits; when `path` is a symbolic
 * link, the file it points to is replaced and the link stays a link. A file with other hard links
 * gets an inode of its own: the other names keep the old content (pnpm's store, `cp -l` backups;
 * README, "Using it"). A new file gets the default mode (0666 less the umask).
 *
 * Rejects with the file system's error (EACCES, ENOSPC …) or an `AbortError` when `signal` is
 * aborted before the rename; the temporary file is removed in both cases.
 */
export async function writeFileAtomically(
  path: string,
  bytes: Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  const target = resolveLinks(path);
  const existing = statIfExists(target);
  const mode = existing === undefined ? undefined : existing.mode & 0o7777;
  const temporaryPath = join(
    dirname(target),
    `.${basename(target)}.${randomUUID().slice(0, 8)}.turnloop-tmp`,
  );
  const handle = await open(temporaryPath, "wx", mode ?? 0o666);
  try {
    try {
      await handle.writeFile(bytes, { signal });
      if (mode !== undefined) {
        // `open` applied the umask; the file we replace may have had bits the umask removes.
        await handle.chmod(mode);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal.throwIfAborted();
    await rename(temporaryPath, target);
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  }
}
