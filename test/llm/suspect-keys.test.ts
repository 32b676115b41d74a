import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { suspectKeysSoughtWherePossible } from "../../scripts/provider-utils-as-bundled.mjs";
import { bundledModule, providerUtilsRewritten } from "../support/bundled-module.js";

// Issue 26, round 3 session 38: the bundle's provider-utils searches a parsed text for prototype
// keys only where the text can hold one (scripts/provider-utils-as-bundled.mjs,
// `suspectKeysSoughtWherePossible`). Its `secureJsonParse`, as shipped and as changed, must give
// the same value or throw the same error for every text; a chunk's usual text is not searched.

/** esbuild's plugin applying the change alone to provider-utils. */
const changedProviderUtils = providerUtilsRewritten(
  "suspect-keys-sought-where-possible",
  suspectKeysSoughtWherePossible,
);

type Variant = "shipped" | "changed";
type Parse = (text: string) => unknown;

let directory: string;
const parses = {} as Record<Variant, Parse>;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "suspect-keys-"));
  const entry = fileURLToPath(
    new URL("../../node_modules/@ai-sdk/provider-utils/dist/index.mjs", import.meta.url),
  );
  for (const variant of ["shipped", "changed"] as const) {
    const plugins = variant === "changed" ? [changedProviderUtils] : [];
    const file = await bundledModule(directory, variant, entry, plugins);
    const utils = (await import(pathToFileURL(file).href)) as { secureJsonParse: Parse };
    parses[variant] = utils.secureJsonParse;
  }
}, 120_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A streamed chunk's text as an OpenAI-compatible server sends it. */
const CHUNK =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"The notes say"},"finish_reason":null}]}';

/** What `parse` gives for `text`: its value, or the error it throws. */
function outcome(parse: Parse, text: string): unknown {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { thrown: error instanceof Error ? [error.name, error.message] : error };
  }
}

describe("provider-utils' secureJsonParse with prototype keys sought where possible", () => {
  test("gives what the shipped one gives, prototype keys written plainly or escaped", () => {
    const texts = [
      CHUNK,
      '{"a":1}',
      "[1,2,3]",
      "null",
      '"a string"',
      "12",
      '{"__proto__":{"polluted":true}}',
      '{"a":{"__proto__" : {"polluted":true}}}',
      '{"\\u005f\\u005fproto\\u005F\\u005F":{"polluted":true}}',
      '{"_\\u005fpro\\u0074o__":1}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":[{"constructor" :{"prototype":{}}}]}',
      '{"\\u0063onstructor":{"prototype":{"polluted":true}}}',
      '{"constructor":{"name":"not a prototype"}}',
      '{"constructor":"a string"}',
      '{"text":"\\"__proto__\\": and \\"constructor\\": in a string"}',
      '{"text":"\\u00e9 escaped, no prototype key"}',
      '{"text":"a \\\\u005f backslash written twice"}',
      '{"__proto__":1, "broken"',
      "not JSON",
    ];
    for (const text of texts) {
      expect(outcome(parses.changed, text), text).toEqual(outcome(parses.shipped, text));
    }
  });

  test("searches a chunk's usual text with no regular expression", () => {
    // Every `RegExp.prototype.test` the parse makes, counted while it runs.
    const searches = (parse: Parse, text: string): number => {
      const original = RegExp.prototype.test;
      let count = 0;
      RegExp.prototype.test = function (this: RegExp, value: string) {
        count += 1;
        return original.call(this, value);
      };
      try {
        parse(text);
      } finally {
        RegExp.prototype.test = original;
      }
      return count;
    };
    expect(searches(parses.changed, CHUNK)).toBe(0);
    expect(searches(parses.changed, '{"text":"\\u00e9"}')).toBe(2);
    expect(searches(parses.changed, '{"constructor":{"name":"a"}}')).toBe(2);
  });
});
