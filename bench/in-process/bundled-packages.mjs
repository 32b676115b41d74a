/**
 * Module hooks (`node:module` `register`) that give the in-process benchmarks the packages as
 * turnloop's bundle runs them: `@ai-sdk/provider-utils` changed as scripts/bundle.mjs changes it
 * (scripts/provider-utils-as-bundled.mjs: one stage parsing the model's event stream instead of
 * three web streams, turnloop's `HeaderList` for the global `Headers`, the body's reader kept
 * locked), and the provider packages changed as scripts/providers-as-bundled.mjs changes them
 * (their `TransformStream` turnloop's `ValueTransform`), pointing at the benchmarked `dist/`.
 * Without them a benchmark measured a request path the command does not run: three more web
 * stream stages per response (heap allocated per tool turn, figure 3d, 632 → 501 KiB with them;
 * bench/notes/turn19.md), and one more since bench/notes/turn40.md.
 *
 * Registered by bench/in-process.mjs with `{dist}` (an absolute path) as its data.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { providerUtilsAsBundled } from "../../scripts/provider-utils-as-bundled.mjs";
import {
  PROVIDER_PACKAGES,
  valueTransformAsTransformStream,
} from "../../scripts/providers-as-bundled.mjs";

/** @type {{headerList: string, sseEventTransform: string, valueTransform: string} | undefined} */
let modules;

/** @param {{dist: string}} data */
export function initialize(data) {
  modules = {
    headerList: pathToFileURL(`${data.dist}/llm/http-headers.js`).href,
    sseEventTransform: pathToFileURL(`${data.dist}/llm/sse-event-transform.js`).href,
    valueTransform: pathToFileURL(`${data.dist}/llm/value-transform.js`).href,
  };
}

const PROVIDER_UTILS = /\/node_modules\/@ai-sdk\/provider-utils\/dist\/index\.mjs$/;

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<object>} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (modules === undefined || !url.startsWith("file:")) {
    return nextLoad(url, context);
  }
  const path = fileURLToPath(url);
  if (PROVIDER_UTILS.test(url)) {
    const source = providerUtilsAsBundled(await readFile(path, "utf8"), path, modules);
    return { format: "module", source, shortCircuit: true };
  }
  if (PROVIDER_PACKAGES.test(path)) {
    const source = await readFile(path, "utf8");
    return {
      format: "module",
      source: valueTransformAsTransformStream(source, path, modules.valueTransform),
      shortCircuit: true,
    };
  }
  return nextLoad(url, context);
}
