/**
 * Runs the bundled CLI from `dist/cli/scripts/` (scripts/code-cache-scripts.mjs) with V8's code
 * cache, so that a run after the first compiles almost none of turnloop's code (issue 26, figures
 * 1a and 7a; before/after in bench/notes/cache.md). Node 20 caches no compiled ES modules
 * between runs; a `vm.Script` takes V8's cache (`cachedData`) and makes one after it ran
 * (`createCachedData`, holding the functions it compiled on their first call too).
 *
 * Where: `<home>/cache/code/<build>-<install>-<node version>-<arch>-<V8 tag>/<script path>.bin`,
 * home being `$TURNLOOP_HOME` (when set and non-empty) or `~/.turnloop` (src/session/paths.ts),
 * `<build>` the scripts' content hash (written into this file by the build), `<install>` a hash of
 * the scripts' folder (the cached code names the paths it was compiled from, which stack traces
 * show: a copy of the same build elsewhere gets a cache of its own), the V8 tag
 * `v8.cachedDataVersionTag()` at the script's load: V8 refuses code made under other flags (a
 * script loaded before a flag is set and cached after it would be refused; such a cache is not
 * written: src/cli/v8-flags.ts lists the flags turnloop sets). Whoever can write that
 * folder can run code as the user, so it is never a shared temporary one: it is made mode 0700,
 * and one that is not the user's own or that others can write is neither read nor written.
 *
 * When: a script whose cache is missing, unreadable or refused (short, damaged, made by another
 * V8: `cachedDataRejected`) compiles as before, and its cache is written at the process's exit
 * (after the run's work; a temporary file renamed over the old one), if the home exists; one
 * whose cache was accepted is written again only by a run that writes a new one (why:
 * code-cache-writer.cts). A home that cannot be written only means no cache. A run that makes a
 * new folder there (a new build, Node, install or flags) then removes the other folders of
 * `cache/code` not modified in 30 days (code-cache-writer.cts), those that pass the reader's
 * checks (the user's own, not a link, nobody else can write them).
 * `TURNLOOP_NO_CODE_CACHE=1` (any non-empty value) turns it off: every script compiles and nothing
 * is read or written.
 *
 * Each script is one function expression (`(function (exports, require, module, __filename,
 * __dirname, __turnloopMeta) {…})`), called as Node's CommonJS loader calls a module's wrapper;
 * its `require("./x.js")` loads the script beside it (once), any other name goes to Node's
 * `require` from the script's folder. Node's modules are taken with `process.getBuiltinModule`,
 * and paths are joined as text: `node:path`'s functions, called for every script, grew hot enough
 * to start V8's optimising compiler (about 3 MiB of peak memory in `acp`).
 */

const fs = process.getBuiltinModule("node:fs");
/** V8's `cachedDataVersionTag` ({@link versionTagFunction}). */
const versionTag = versionTagFunction();

/** The scripts' content hash; scripts/code-cache-scripts.mjs writes the real one at build time. */
const BUILD_HASH = "unbuilt-00000000";

interface LoadedScript {
  exports: unknown;
}

interface PendingCache {
  script: import("node:vm").Script;
  file: string;
  /** `v8.cachedDataVersionTag()` when the script compiled; written only under the same. */
  tag: number;
}

const loaded = new Map<string, LoadedScript>();
const pending: PendingCache[] = [];
/** The scripts that took their cache. */
const taken: PendingCache[] = [];
const nodeRequires = new Map<string, NodeJS.Require>();
/** One buffer for every script and cache file read, so that the run holds the largest alone. */
let readBuffer = Buffer.allocUnsafeSlow(0);

/** `<home>/cache`, or undefined when the cache is turned off. */
const cacheRoot = codeCacheRoot(process.env);

/**
 * `<home>/cache` (absolute; `$TURNLOOP_HOME` resolved as src/session/paths.ts resolves it), or
 * undefined when `TURNLOOP_NO_CODE_CACHE` is set and non-empty or `TURNLOOP_HOME` is relative.
 */
function codeCacheRoot(environment: NodeJS.ProcessEnv): string | undefined {
  const off = environment.TURNLOOP_NO_CODE_CACHE;
  if (off !== undefined && off !== "") {
    return undefined;
  }
  const configured = environment.TURNLOOP_HOME;
  if (configured === undefined || configured === "") {
    return `${process.getBuiltinModule("node:os").homedir()}/.turnloop/cache`;
  }
  // A relative one is refused (src/cli/home-variable.ts): nothing is written against the cwd.
  const path = process.getBuiltinModule("node:path");
  return path.isAbsolute(configured) ? `${path.resolve(configured)}/cache` : undefined;
}

/**
 * Runs the script `file` (absolute, under `dist/cli/scripts/`) and the scripts it requires; the
 * script's `module.exports`. Errors of its code are thrown as they are.
 */
function runScript(file: string): unknown {
  const done = loaded.get(file);
  if (done !== undefined) {
    return done.exports;
  }
  const source = readSource(file);
  const wrapper = process.sourceMapsEnabled
    ? compiledWithSourceMap(file, source)
    : compiled(file, source);
  const module: LoadedScript = { exports: {} };
  loaded.set(file, module);
  const folder = folderOf(file);
  const meta = {
    exportNames,
    get url(): string {
      return process.getBuiltinModule("node:url").pathToFileURL(file).href;
    },
  };
  wrapper.call(module.exports, module.exports, scriptRequire(folder), module, file, folder, meta);
  return module.exports;
}

type Wrapper = (...args: unknown[]) => void;

/** The script's function, compiled with its cached code when there is one it can take. */
function compiled(file: string, source: string): Wrapper {
  const tag = versionTag();
  const cacheFile = cacheFileOf(file, tag);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  const script = new (process.getBuiltinModule("node:vm").Script)(source, {
    filename: file,
    cachedData,
  });
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    if (pending.length === 0) {
      process.once("exit", writePendingCaches);
    }
    pending.push({ script, file: cacheFile, tag });
  } else if (cacheFile !== undefined) {
    taken.push({ script, file: cacheFile, tag });
  }
  return script.runInThisContext() as Wrapper;
}

/**
 * With `--enable-source-maps`: the script's function compiled by Node's CommonJS loader, which
 * reads the script's source map (`<file>.map`, leading back to turnloop's sources) for stack
 * traces, as it did for the ES modules; `vm.Script` on Node 20 does not. No code cache then.
 */
function compiledWithSourceMap(file: string, source: string): Wrapper {
  const Module = process.getBuiltinModule("node:module");
  const holder = new Module(file) as unknown as {
    exports: unknown;
    _compile(content: string, filename: string): void;
  };
  // The first line is the wrapper's start: the code's own lines, and their mappings, stay put.
  holder._compile(`module.exports = ${source}`, file);
  return holder.exports as Wrapper;
}

/**
 * esbuild's `__export(target, getters)` for the scripts (scripts/code-cache-scripts.mjs puts this
 * in its place, as `__turnloopMeta.exportNames`): defines each name of `getters` on `target`, a
 * script's new exports or namespace object, as an enumerable getter, as esbuild's helper does.
 * First `target` gets two properties and loses them, the first before the second: V8 then holds
 * its properties in a dictionary, where each getter is one insertion, instead of making a new
 * hidden class (map) for each (issue 26: the bundle defines about 1,300 such names before the
 * first request; bench/notes/start22.md). Reading a name costs a dictionary lookup instead.
 */
function exportNames(target: object, getters: Readonly<Record<string, () => unknown>>): void {
  const scratch = target as Record<string, unknown>;
  scratch.__turnloopFirst = 0;
  scratch.__turnloopSecond = 0;
  delete scratch.__turnloopFirst;
  delete scratch.__turnloopSecond;
  for (const name in getters) {
    Object.defineProperty(target, name, { get: getters[name], enumerable: true });
  }
}

/** The folder of `file` (an absolute path; `/` or, on Windows, `\\` between names). */
function folderOf(file: string): string {
  return file.slice(0, Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\")));
}

/** The `require` of the scripts in `folder`. */
function scriptRequire(folder: string): (name: string) => unknown {
  return (name) => {
    if (name.startsWith("./")) {
      return runScript(`${folder}${name.slice(1)}`);
    }
    let nodeRequire = nodeRequires.get(folder);
    if (nodeRequire === undefined) {
      nodeRequire = process.getBuiltinModule("node:module").createRequire(`${folder}/`);
      nodeRequires.set(folder, nodeRequire);
    }
    return nodeRequire(name);
  };
}

/** Where the cache of `file` is, under V8 tag `tag`; undefined when the cache is off. */
function cacheFileOf(file: string, tag: number): string | undefined {
  if (cacheRoot === undefined) {
    return undefined;
  }
  const scripts = file.search(/[\\/]scripts[\\/](?!.*[\\/]scripts[\\/])/);
  const name = file.slice(scripts + "/scripts/".length).replaceAll(/[\\/]/g, "-");
  const install = textHash(file.slice(0, scripts + "/scripts".length));
  const build = `${BUILD_HASH}-${install}-${process.version}-${process.arch}-${tag}`;
  return `${cacheRoot}/code/${build}/${name}.bin`;
}

/** FNV-1a of `text`'s UTF-16 code units: 8 hex digits (a name, not a defence: no `node:crypto`). */
function textHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * The text of the script `file`, read into the shared buffer and decoded as Latin-1 when it is all
 * ASCII (most scripts: scripts/code-cache-scripts.mjs), else as UTF-8. Errors are thrown. Against
 * `fs.readFileSync(file, "utf8")`: about 500 page faults and 0.8 MiB of peak memory fewer in a
 * `-p` run (bench/notes/start24.md).
 */
function readSource(file: string): string {
  const bytes = readBytes(file);
  return process.getBuiltinModule("node:buffer").isAscii(bytes)
    ? bytes.toString("latin1")
    : bytes.toString("utf8");
}

/** The cache file's bytes (a view of the shared buffer), or undefined if it cannot be used. */
function readCache(file: string): Buffer | undefined {
  try {
    return trusted(file) ? readBytes(file) : undefined;
  } catch {
    return undefined;
  }
}

/** The bytes of `file`: a view of the shared buffer (grown to fit), good until the next read. */
function readBytes(file: string): Buffer {
  const descriptor = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(descriptor).size;
    if (size > readBuffer.length) {
      readBuffer = Buffer.allocUnsafeSlow(Math.max(size, 2 * readBuffer.length));
    }
    let read = 0;
    while (read < size) {
      const count = fs.readSync(descriptor, readBuffer, read, size - read, read);
      if (count === 0) {
        break;
      }
      read += count;
    }
    return readBuffer.subarray(0, read);
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Each cache folder's check, by path ({@link privateFolder}). */
const folderChecks = new Map<string, boolean>();

/**
 * Whether `folder` may hold caches: a folder of this user's that nobody else can write, or not
 * there yet (the first write makes it, mode 0700). Checked once per folder per run.
 */
function privateFolder(folder: string): boolean {
  let check = folderChecks.get(folder);
  if (check === undefined) {
    try {
      check = ownPrivateFolder(fs.statSync(folder));
    } catch (error) {
      check = (error as NodeJS.ErrnoException).code === "ENOENT";
    }
    folderChecks.set(folder, check);
  }
  return check;
}

/** Whether `stats` are of a folder of this user's that nobody else can write. */
function ownPrivateFolder(stats: import("node:fs").Stats): boolean {
  return (
    stats.isDirectory() &&
    (stats.mode & 0o022) === 0 &&
    (process.getuid === undefined || stats.uid === process.getuid())
  );
}

/**
 * Whether the cache file `file` may be read or written: every folder from `<home>/cache` down to
 * the file's own is {@link privateFolder} (whoever can write one of them can put code there that
 * this user would run).
 */
function trusted(file: string): boolean {
  return (
    cacheRoot !== undefined &&
    privateFolder(cacheRoot) &&
    privateFolder(`${cacheRoot}/code`) &&
    privateFolder(folderOf(file))
  );
}

/**
 * `cachedDataVersionTag` of V8's binding (`process.binding("v8")`), taken as the bin's flag reset
 * takes it (src/cli/turnloop.cts: Node's deprecation warning kept off stderr for that call), or
 * `node:v8`'s where the binding is gone. `node:v8` would load three more of Node's modules
 * (`internal/heap_utils`, `internal/promise_hooks`, `v8`) in every run: about 2 M instructions of
 * a `-p` run (issue 26 figure 1a; bench/notes/start32.md).
 */
function versionTagFunction(): () => number {
  const quiet = process.noDeprecation === true;
  if (!quiet) {
    process.noDeprecation = true;
  }
  try {
    const { binding } = process as unknown as { binding?: (name: string) => unknown };
    const v8 = binding?.call(process, "v8") as { cachedDataVersionTag?: () => number } | undefined;
    if (typeof v8?.cachedDataVersionTag === "function") {
      return v8.cachedDataVersionTag;
    }
  } catch {
    // No binding to take: `node:v8` below.
  } finally {
    if (!quiet) {
      process.noDeprecation = false;
    }
  }
  return process.getBuiltinModule("node:v8").cachedDataVersionTag;
}

/** At exit: the caches of scripts compiled without one, then the others', each renamed in. */
function writePendingCaches(): void {
  const tag = versionTag();
  try {
    if (cacheRoot === undefined || pending.length === 0) {
      return;
    }
    const { freeBytes, KEEP_FREE_BYTES, makeFolder, writeThenRename, removeUnusedFolders } =
      require("./code-cache-writer.cjs") as typeof import("./code-cache-writer.cjs");
    let room = freeBytes(folderOf(cacheRoot)) - KEEP_FREE_BYTES;
    let made: string | undefined;
    for (const { script, file, tag: compiledUnder } of [...pending.splice(0), ...taken]) {
      if (compiledUnder !== tag || !trusted(file)) {
        continue;
      }
      const data = script.createCachedData();
      room -= data.length;
      if (room < 0) {
        break;
      }
      makeFolder(cacheRoot);
      makeFolder(`${cacheRoot}/code`);
      if (makeFolder(folderOf(file))) {
        made = folderOf(file);
      }
      writeThenRename(file, data);
    }
    if (made !== undefined) {
      removeUnusedFolders(`${cacheRoot}/code`, made, ownPrivateFolder);
    }
  } catch {
    // A home that cannot be written (read-only, full): the next run compiles again.
  }
}

export = { runScript };
