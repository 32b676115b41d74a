/**
 * The code cache's writing side (src/cli/code-cache.cts, which says where and when): the files
 * and folders written at the process's exit, and the removal of unused folders. Loaded by the
 * loader's exit handler, and only when a script compiled without a cache: a run whose every
 * script took its cache (the usual run) never loads this file.
 *
 * Such a run also writes again the caches that its other scripts took: it went where the runs
 * before it did not (a first tool call loads scripts of its own), so the functions it compiled in
 * the scripts it took (a tool call's, in the shared ones) were in no cache. Caches made by a run
 * that called no tool, never written again, left them to every later run's first tool call
 * (issue 26, figure 3b: bench/notes/turn45.md).
 */

const fs = process.getBuiltinModule("node:fs");

/**
 * What the cache leaves free on the file system of the turnloop home (bytes): the session logs
 * live there, and a cache is never worth a log that cannot be written (a small or nearly full
 * disk gets no cache).
 */
const KEEP_FREE_BYTES = 64 * 1024 * 1024;

/** Bytes an unprivileged user may still write on the file system holding `folder`; 0 if unknown. */
function freeBytes(folder: string): number {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return 0;
  }
}

/**
 * Writes `data` to `file` through a temporary file beside it (mode 0600), renamed into place; a
 * write that fails (a full disk) removes its temporary file, leaving nothing behind, and throws.
 */
function writeThenRename(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Makes the folder `path` (mode 0700) unless it is there; whether it made it. Its parent must be
 * there: a home that is gone (removed while the run exited) is not made again for a cache.
 */
function makeFolder(path: string): boolean {
  try {
    fs.mkdirSync(path, { mode: 0o700 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw error;
    }
    return false;
  }
}

/**
 * Days a cache folder may go unmodified (no cache written in it) before a run that makes another
 * folder removes it. A folder that is only read keeps its old time: removed, its build compiles
 * once more and writes it again.
 */
const UNUSED_FOLDER_DAYS = 30;

/**
 * Removes each entry of `codeFolder` (`<home>/cache/code`, already checked private) but `current`
 * that is a folder (never a link: `lstat`) of this user's that nobody else can write
 * (`ownPrivateFolder`, the reader's check) and that was not modified in
 * {@link UNUSED_FOLDER_DAYS} days. Errors leave the entry where it is.
 */
function removeUnusedFolders(
  codeFolder: string,
  current: string,
  ownPrivateFolder: (stats: import("node:fs").Stats) => boolean,
): void {
  const before = Date.now() - UNUSED_FOLDER_DAYS * 24 * 60 * 60 * 1000;
  for (const name of fs.readdirSync(codeFolder)) {
    const folder = `${codeFolder}/${name}`;
    try {
      const stats = fs.lstatSync(folder);
      if (folder !== current && ownPrivateFolder(stats) && stats.mtimeMs < before) {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    } catch {
      // Removed by another run meanwhile, or not removable: left as it is.
    }
  }
}

export = { KEEP_FREE_BYTES, freeBytes, makeFolder, removeUnusedFolders, writeThenRename };
