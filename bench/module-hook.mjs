/**
 * Module-resolution hook for the `module-count` benchmark of in-process.mjs: reports the URL of
 * every ES module resolved to the port it was given (registered with `module.register`).
 */

/** @type {MessagePort | undefined} */
let port;

/** @param {{port: MessagePort}} data */
export async function initialize(data) {
  port = data.port;
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{url: string}>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  port?.postMessage(result.url);
  return result;
}
