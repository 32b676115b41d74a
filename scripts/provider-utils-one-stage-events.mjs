/**
 * The bundled `@ai-sdk/provider-utils` parses a model's event stream in one web stream stage
 * (src/llm/sse-event-transform.ts) instead of its three (`TextDecoderStream`,
 * `EventSourceParserStream`, its parsing transform): each stage cost about 3 native objects and a
 * promise hop per event on every model request (bench/notes/server.md, session 14). Given
 * provider-utils' source, returns it with `parseJsonEventStream`'s body handing the body and
 * `safeParseJSON` to turnloop's `jsonEventStream`; the function's name, arguments and results
 * are unchanged. A provider-utils whose function reads otherwise fails the build.
 */

import { join } from "node:path";

const ORIGINAL = `function parseJsonEventStream({
  stream,
  schema
}) {
  return stream.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).pipeThrough(
    new TransformStream({
      async transform({ data }, controller) {
        if (data === "[DONE]") {
          return;
        }
        controller.enqueue(await safeParseJSON({ text: data, schema }));
      }
    })
  );
}`;

const ONE_STAGE = `function parseJsonEventStream({
  stream,
  schema
}) {
  return jsonEventStream(stream, (text) => safeParseJSON({ text, schema }));
}`;

/**
 * @param {string} source provider-utils' `dist/index.mjs`
 * @param {string} path its path, for the error
 * @param {string} [module] the module `jsonEventStream` is imported from; default
 *   src/llm/sse-event-transform.ts (the bundle's)
 * @returns {string}
 */
export function oneStageJsonEvents(
  source,
  path,
  module = join(process.cwd(), "src", "llm", "sse-event-transform.ts"),
) {
  if (source.split(ORIGINAL).length !== 2) {
    throw new Error(`${path}: provider-utils' parseJsonEventStream is no longer as expected`);
  }
  return `import { jsonEventStream } from ${JSON.stringify(module)};\n${source.replace(ORIGINAL, ONE_STAGE)}`;
}
