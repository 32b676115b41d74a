/**
 * `@ai-sdk/provider-utils` as turnloop's bundle runs it (scripts/bundle.mjs), in one function, so
 * the in-process benchmarks (bench/in-process.mjs), which run `tsc`'s `dist/` against the packages
 * in `node_modules`, can load the same code the command runs:
 * - the global `Headers` is turnloop's `HeaderList` (src/llm/http-headers.ts): touching the
 *   global loads undici, about 6 MiB of resident memory that turnloop's own `fetch` over
 *   `node:http` (src/llm/http-fetch.ts) otherwise never needs (issue 26; figures in
 *   bench/notes/targets.md, "Start-up and memory, round 3, session 5"); the records it builds
 *   from it are the same;
 * - its event streams are parsed in one stage, not three (scripts/provider-utils-one-stage-events.mjs);
 * - its reader of a response's body keeps its lock ({@link bodyReaderKept});
 * - an event stream's body is read by the parser itself, not through a stream of its own
 *   ({@link bodyReadOnce});
 * - a zod 4 schema validates synchronously where zod can ({@link zodParsedAtOnce});
 * - its JSON parse searches for prototype keys only where the text can hold one
 *   ({@link suspectKeysSoughtWherePossible}).
 * A provider-utils that reads otherwise fails (the build, or the benchmark's load).
 */

import { oneStageJsonEvents } from "./provider-utils-one-stage-events.mjs";

/**
 * @param {string} source provider-utils' `dist/index.mjs`
 * @param {string} path its path, for the errors
 * @param {{headerList: string, sseEventTransform: string}} modules what its imports name: the
 *   module of `HeaderList` (src/llm/http-headers.ts or its `dist/` output) and of
 *   `jsonEventStream` (src/llm/sse-event-transform.ts or its output)
 * @returns {string}
 */
export function providerUtilsAsBundled(source, path, modules) {
  if (
    !/\bnew Headers\(/.test(source) ||
    /\b(class|const|let|var|function) Headers\b/.test(source)
  ) {
    throw new Error(`${path}: provider-utils no longer uses the global Headers as expected`);
  }
  const events = suspectKeysSoughtWherePossible(
    zodParsedAtOnce(
      bodyReadOnce(
        bodyReaderKept(oneStageJsonEvents(source, path, modules.sseEventTransform), path),
        path,
      ),
      path,
    ),
    path,
  );
  return `import { HeaderList as Headers } from ${JSON.stringify(modules.headerList)};\n${events}`;
}

/**
 * provider-utils' `wrapResponseBodyStream` releases its reader of a response's body once the body
 * ended, failed or was cancelled. The first `releaseLock` of a process makes Node 20 build its
 * released-reader error in a `vm` context of its own (about 5 M instructions; the stages after it
 * release none: src/llm/lock-keeping-stream.ts, `LockKeepingStream`). Nothing reads a body after
 * that, so the reader keeps its lock; errors, cancels and ends are passed on as before. A
 * provider-utils whose function reads otherwise fails. Since {@link bodyReadOnce}, this
 * provider-utils' one caller of the wrapper no longer calls it (the bundle leaves it out); the
 * change stays for a later provider-utils that calls it elsewhere.
 * @param {string} source
 * @param {string} path
 */
function bodyReaderKept(source, path) {
  const release = `  const releaseReader = () => {
    if (!readerReleased) {
      reader.releaseLock();
      readerReleased = true;
    }
  };`;
  if (source.split(release).length !== 2) {
    throw new Error(`${path}: provider-utils' wrapResponseBodyStream is no longer as expected`);
  }
  return source.replace(
    release,
    "  const releaseReader = () => {\n    readerReleased = true;\n  };",
  );
}

/** provider-utils' `createEventSourceResponseHandler` handing the body to the parser. */
const EVENTS_THROUGH_WRAPPER = `    value: parseJsonEventStream({
      stream: wrapResponseBodyStream({
        stream: response.body,
        url,
        requestBodyValues,
        statusCode: response.status,
        responseHeaders
      }),
      schema: chunkSchema
    })`;

/** What `wrapResponseBodyStream` makes of a failed read of the body (`controller.error`'s). */
const WRAPPER_READ_FAILURE = `      } catch (error) {
        releaseReader();
        if (isAbortError(error)) {
          controller.error(error);
          return;
        }
        controller.error(
          handleFetchError({
            error: new APICallError4({
              message: "Failed to process successful response",
              cause: error,
              statusCode,
              url,
              responseHeaders,
              requestBodyValues
            }),
            url,
            requestBodyValues
          })
        );
      }`;

/**
 * provider-utils' `createEventSourceResponseHandler` (every streamed reply of the OpenAI chat and
 * Responses, OpenAI-compatible and Anthropic models) passes the response's body through
 * `wrapResponseBodyStream`, a `ReadableStream` of its own whose only work is to turn a failed
 * read into an `APICallError` ("Failed to process successful response", the read's error as its
 * cause, then `handleFetchError`), an abort's error left as it is. That stream was one more web
 * stream per model request (on Node 20 each is made transferable: a native object and a
 * prototype change) and a pull, a read and an enqueue per piece of the body. Here the handler
 * gives the body to `jsonEventStream` (src/llm/sse-event-transform.ts) with that mapping of a
 * failed read, which the parser applies where it reads: the values, ends, errors and cancels a
 * reader sees are the wrapper's (test/llm/body-read-once.test.ts). A provider-utils whose
 * handler or wrapper reads otherwise fails; so does one without `jsonEventStream` imported
 * (oneStageJsonEvents).
 * @param {string} source
 * @param {string} path
 */
export function bodyReadOnce(source, path) {
  if (
    source.split(EVENTS_THROUGH_WRAPPER).length !== 2 ||
    source.split(WRAPPER_READ_FAILURE).length !== 2 ||
    !source.includes("import { jsonEventStream } from ")
  ) {
    throw new Error(`${path}: provider-utils' event stream handler is no longer as expected`);
  }
  return source.replace(
    EVENTS_THROUGH_WRAPPER,
    `    value: jsonEventStream(
      response.body,
      (text) => safeParseJSON({ text, schema: chunkSchema }),
      (error) => isAbortError(error) ? error : handleFetchError({
        error: new APICallError4({
          message: "Failed to process successful response",
          cause: error,
          statusCode: response.status,
          url,
          responseHeaders,
          requestBodyValues
        }),
        url,
        requestBodyValues
      })
    )`,
  );
}

/** What provider-utils' `zod4Schema` validates with: zod's asynchronous parse, always. */
const ZOD4_ASYNC_VALIDATE = `      validate: async (value) => {
        const result = await z4.safeParseAsync(zodSchema2, value);
        return result.success ? { success: true, value: result.data } : { success: false, error: result.error };
      }`;

/**
 * provider-utils' `zod4Schema` (the wrapper `zodSchema` gives every zod 4 schema: the chunk
 * schemas of `@ai-sdk/openai`'s chat and Responses models and of `@ai-sdk/anthropic`, their error
 * and provider-option schemas) validates with `z4.safeParseAsync`, which turns off zod's compiled
 * parser for objects and costs promise hops per check: each chunk of those wires' streams paid it
 * (bench/notes/turn24.md). Here `validate` parses with `z4.safeParse` and returns its result
 * at once. When `safeParse` throws (a schema with asynchronous parts, which it refuses, or a
 * refinement that throws), the value is parsed with `safeParseAsync` as before and that result,
 * or rejection, is what `validate` gives: zod's error class is not checked, since a schema made by
 * another copy of zod throws that copy's. The results are zod's own either way (test/llm/zod-parsed-at-once.test.ts runs every wire's streams through both). Its
 * callers (`safeValidateTypes`) await the result, a value or a promise. The OpenAI-compatible
 * model's chunk schema does not come here (src/llm/sync-chunk-validation.ts). A provider-utils
 * whose `zod4Schema` reads otherwise fails.
 * @param {string} source
 * @param {string} path
 */
export function zodParsedAtOnce(source, path) {
  if (source.split(ZOD4_ASYNC_VALIDATE).length !== 2) {
    throw new Error(`${path}: provider-utils' zod4Schema no longer validates as expected`);
  }
  return source.replace(
    ZOD4_ASYNC_VALIDATE,
    `      validate: (value) => {
        let result;
        try {
          result = z4.safeParse(zodSchema2, value);
        } catch {
          return z4.safeParseAsync(zodSchema2, value).then((later) => later.success ? { success: true, value: later.data } : { success: false, error: later.error });
        }
        return result.success ? { success: true, value: result.data } : { success: false, error: result.error };
      }`,
  );
}

/** provider-utils' `secureJsonParse`: two regular expressions searched in every text parsed. */
const SUSPECT_KEYS_SEARCH = `  if (suspectProtoRx.test(text) === false && suspectConstructorRx.test(text) === false) {
    return obj;
  }`;

/**
 * provider-utils' `secureJsonParse` (every streamed chunk's JSON, `safeParseJSON`) parses the
 * text, then searches it with `suspectProtoRx` and `suspectConstructorRx` (a `"__proto__"` or
 * `"constructor"` key, each letter written as itself or as a `\u00XX` escape) before it walks
 * the value for such keys. Both expressions are long; V8 compiles each on its first search and
 * again to machine code on its second, in every process: about 2.3 M instructions of a `-p` run
 * (bench/notes/start38.md). Here a text without `\u` and without `"__proto__"` and
 * `"constructor"` is returned at once: without an escape, those quoted names are the only texts
 * either expression can match, so it answers as the search would have; any other text is searched
 * as before. A provider-utils whose parse reads otherwise fails.
 * @param {string} source
 * @param {string} path
 */
export function suspectKeysSoughtWherePossible(source, path) {
  if (source.split(SUSPECT_KEYS_SEARCH).length !== 2) {
    throw new Error(`${path}: provider-utils' secureJsonParse no longer searches as expected`);
  }
  return source.replace(
    SUSPECT_KEYS_SEARCH,
    `  if (
    !text.includes("\\\\u") &&
    !text.includes('"__proto__"') &&
    !text.includes('"constructor"')
  ) {
    return obj;
  }
${SUSPECT_KEYS_SEARCH}`,
  );
}
