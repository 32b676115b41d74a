/**
 * Loaded with `node --import` (the tests put it in NODE_OPTIONS): appends the URL of every module
 * the process loads to the file named by TURNLOOP_TEST_MODULE_LOG, one line each, at the moment
 * it loads. ES modules are seen by a `load` hook (module-recorder-hooks.mjs, registered with
 * `module.register`; it runs in Node's hooks thread and writes synchronously, so the file is
 * complete before the module's code runs); CommonJS modules, which Node 20 loads through `require`
 * without those hooks, are seen by wrapping `Module.prototype.load`. A module can be recorded by
 * both: readers count unique URLs.
 */

import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import { pathToFileURL } from "node:url";

const file = process.env.TURNLOOP_TEST_MODULE_LOG;
if (file !== undefined && file !== "") {
  register(new URL("./module-recorder-hooks.mjs", import.meta.url), { data: { file } });
  const load = Module.prototype.load;
  Module.prototype.load = function recordedLoad(filename) {
    appendFileSync(file, `${pathToFileURL(filename).href}\n`);
    return load.call(this, filename);
  };
}
