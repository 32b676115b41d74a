/**
 * A preload (`node --import`) that counts the server's calls of some `node:fs` functions by their
 * caller, for bench/notes/server40.md: each call's first five stack frames (source-mapped with
 * `--enable-source-maps`) are its key; at exit the counts go to `/tmp/fs-callers-<pid>.txt`, one
 * `count<TAB>function<TAB>frames` line each, most first. The server runs in a folder of the
 * bench's, so the preload is named by its absolute path:
 *
 *   node bench/scale-headless.mjs --dist <build>/dist --sessions 200 \
 *     --node-flags "--enable-source-maps --import $PWD/bench/notes/server40-fs-callers.mjs"
 *
 * The functions are replaced on Node's `fs` module object and shown to ESM imports by
 * `syncBuiltinESMExports`; code that took a function before the preload ran is not counted.
 */

import fs, { writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const counts = new Map();
const out = `/tmp/fs-callers-${process.pid}.txt`;

function caller() {
  const frames = (new Error().stack ?? "").split("\n").slice(3, 8);
  return frames.map((frame) => frame.trim().replace(/^at /, "")).join(" < ");
}

function wrap(owner, name, label) {
  const original = owner[name];
  if (typeof original !== "function") {
    return;
  }
  const wrapped = function (...args) {
    const key = `${label}\t${caller()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
  Object.assign(wrapped, original);
  owner[name] = wrapped;
}

const native = fs.realpathSync.native;
wrap(fs, "realpathSync", "realpathSync");
fs.realpathSync.native = native;
wrap(fs.realpathSync, "native", "realpathSync.native");
const names = ["statSync", "lstatSync", "existsSync", "readdirSync", "accessSync"];
for (const name of [...names, "stat", "lstat", "realpath", "access", "readdir"]) {
  wrap(fs, name, name);
}
for (const name of ["stat", "lstat", "realpath", "access", "readdir"]) {
  wrap(fs.promises, name, `promises.${name}`);
}
syncBuiltinESMExports();
process.on("exit", () => {
  const lines = [...counts].sort((a, b) => b[1] - a[1]).map(([key, count]) => `${count}\t${key}`);
  writeFileSync(out, `${lines.join("\n")}\n`);
});
