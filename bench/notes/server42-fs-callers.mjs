/**
 * A preload (`node --import`) that counts the server's calls of the `node:fs` functions behind
 * its per-turn file-system work, by caller, for bench/notes/server42.md: the log's `fdatasync`
 * and `writeSync`, the small files' `open` (small-file.ts `createFile`), `rename`, `unlink`,
 * `readFileSync` (the lock's read) and `statSync` (the breaker's check). Each call's first six
 * stack frames (source-mapped with `--enable-source-maps`) and its path's last name (the file
 * descriptor's for `fdatasync`/`writeSync`: `fd`) are its key; at exit the counts go to
 * `/tmp/fs-callers42-<pid>.txt`, one `count<TAB>function<TAB>file<TAB>frames` line each, most
 * first. As server40-fs-callers.mjs (named by its absolute path):
 *
 *   node bench/scale-headless.mjs --dist <build>/dist --sessions 20 --first-token 0-0 \
 *     --node-flags "--enable-source-maps --import $PWD/bench/notes/server42-fs-callers.mjs"
 */

import fs, { writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";

const counts = new Map();
const out = `/tmp/fs-callers42-${process.pid}.txt`;

const depth = Number(process.env.FS_CALLERS_DEPTH ?? 6);

function caller() {
  const frames = (new Error().stack ?? "").split("\n").slice(3, 3 + depth);
  return frames
    .map((frame) =>
      frame
        .trim()
        .replace(/^at /, "")
        .replace(/\(.*\/(src|dist)\//, "($1/"),
    )
    .join(" < ");
}

function fileOf(first) {
  if (typeof first === "string") {
    return basename(first).replace(/\.[0-9a-f]{8}\.tmp$/, ".<tmp>");
  }
  return typeof first === "number" ? "fd" : "?";
}

for (const name of [
  "fdatasync",
  "writeSync",
  "open",
  "rename",
  "unlink",
  "readFileSync",
  "statSync",
]) {
  const original = fs[name];
  const wrapped = function (...args) {
    const key = `${name}\t${fileOf(args[0])}\t${caller()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
  Object.assign(wrapped, original);
  fs[name] = wrapped;
}
syncBuiltinESMExports();
process.on("exit", () => {
  const lines = [...counts].sort((a, b) => b[1] - a[1]).map(([key, count]) => `${count}\t${key}`);
  writeFileSync(out, `${lines.join("\n")}\n`);
});
