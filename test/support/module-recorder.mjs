/**
 * Loaded with `node --import` (the tests put it in NODE_OPTIONS): appends the URL of every module
 * the process loads to the file named by TURNLOOP_TEST_MODULE_LOG, one line each, at the moment
 * it loads. ES modules are seen by a `load` hook (module-recorder-hooks.mjs, registered with
 * `module.register`; it runs in Node's hooks thread and writes synchronously, so the file is
 * complete before the module's code runs); CommonJS modules, which Node 20 loads through `require`
 * without those hooks, are seen by wrapping `Module.prototype.load`, and Node's own modules that
 * they `require` (`node:fs`, as the ES module hook names them) by wrapping
 * `Module.prototype.require`. The bundle's scripts (src/cli/code-cache.cts runs them with
 * `vm.Script`) are seen by wrapping `vm.Script`, by their file. A module can be recorded more than
 * once: readers count unique URLs.
 */

import { appendFileSync } from "node:fs";
import Module, { isBuiltin, register } from "node:module";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

const file = process.env.TURNLOOP_TEST_MODULE_LOG;
if (file !== undefined && file !== "") {
  register(new URL("./module-recorder-hooks.mjs", import.meta.url), { data: { file } });
  const load = Module.prototype.load;
  Module.prototype.load = function recordedLoad(filename) {
    appendFileSync(file, `${pathToFileURL(filename).href}\n`);
    return load.call(this, filename);
  };
  const require = Module.prototype.require;
  Module.prototype.require = function recordedRequire(id) {
    if (isBuiltin(id)) {
      appendFileSync(file, `node:${id.replace(/^node:/, "")}\n`);
    }
    return require.call(this, id);
  };
  const Script = vm.Script;
  vm.Script = class RecordedScript extends Script {
    constructor(code, options) {
      if (options?.filename !== undefined) {
        appendFileSync(file, `${pathToFileURL(options.filename).href}\n`);
      }
      super(code, options);
    }
  };
}
