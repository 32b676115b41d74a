/**
 * The module-loading hooks of module-recorder.mjs: `initialize` gets the log file's path, `load`
 * appends each URL to it before loading.
 */

import { appendFileSync } from "node:fs";

/** @type {string | undefined} */
let file;

/** @param {{file: string}} data */
export async function initialize(data) {
  file = data.file;
}

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<unknown>} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (file !== undefined) {
    appendFileSync(file, `${url}\n`);
  }
  return nextLoad(url, context);
}
