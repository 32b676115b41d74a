import { createRequire } from "node:module";
import type { PriceCalculation } from "@pydantic/genai-prices";
import type { Usage } from "../events/events.js";
import { CATALOGUE_NAME_CLAUSES } from "./catalogue-name-clauses.js";
import { COMMON_CONTEXT_WINDOWS } from "./common-context-windows.js";

/**
 * Model metadata (context windows, prices) from a maintained catalogue: `@pydantic/genai-prices`,
 * its bundled price data (no network: we never call its `updatePrices`). Covers OpenAI,
 * Anthropic and many hosted open models; a model it does not know has no price and no context
 * window here.
 *
 * The catalogue is one large module (issue 26: about 20 MiB of memory and a tenth of a second of
 * CPU to load), so it is loaded on the first lookup that needs it: a price, or the context window
 * of a model that `COMMON_CONTEXT_WINDOWS` (llm/common-context-windows.ts) does not list. It is
 * loaded synchronously, through `require` of its CommonJS build, so that callers stay synchronous.
 * A model name that none of the catalogue's name tests accepts (llm/catalogue-name-clauses.ts:
 * a local or self-hosted model's, such as an OpenAI-compatible server's) is answered "unknown"
 * without loading it.
 */

type Catalogue = typeof import("@pydantic/genai-prices");

let catalogue: Catalogue | undefined;

function loadCatalogue(): Catalogue {
  catalogue ??= createRequire(import.meta.url)("@pydantic/genai-prices") as Catalogue;
  return catalogue;
}

/**
 * The catalogue's name tests other than `equals`, made on first use: the lists split, and each
 * regular expression with the text a name it accepts must start with ({@link literalPrefix}),
 * compiled only for a name that starts with that text (issue 26: a name no test accepts is the
 * common case, a local model's, and compiling the 39 expressions for it was most of the tests'
 * cost before the first request; bench/notes/start23.md).
 */
let nameTests:
  | {
      startsWith: readonly string[];
      endsWith: readonly string[];
      contains: readonly string[];
      regex: readonly GatedExpression[];
    }
  | undefined;

/** A regular expression of the catalogue's and the text every name it accepts starts with. */
interface GatedExpression {
  /** `""` when no such text could be told from the expression: then every name is tested. */
  prefix: string;
  source: string;
  compiled?: RegExp;
}

/**
 * The catalogue retries a name with a compact date (`-20250514`) written with dashes
 * (`-2025-05-14`); such names are always looked up rather than rewritten here.
 */
const COMPACT_DATE = /-20\d{6}/;

/**
 * Whether the catalogue might know the model `name` (after the `provider:` prefix): false when
 * none of its name tests accepts the name as the catalogue compares it (trimmed, lower-cased),
 * so the catalogue would find no model. Its clauses are `or`s and `and`s of these tests, never
 * negations, so a name no test accepts matches no clause.
 */
function mightBeCatalogued(name: string): boolean {
  let known = judgedNames.get(name);
  if (known === undefined) {
    known = acceptedByANameTest(name);
    judgedNames.set(name, known);
  }
  return known;
}

/**
 * {@link mightBeCatalogued}'s answers so far, by name: a session prices every reply of its one or
 * two models, and the name tests take about 15 µs a call (bench/notes/turn.md).
 */
const judgedNames = new Map<string, boolean>();

function acceptedByANameTest(name: string): boolean {
  const lowerCase = name.trim().toLowerCase();
  if (COMPACT_DATE.test(lowerCase) || inList(CATALOGUE_NAME_CLAUSES.equals, lowerCase)) {
    return true;
  }
  nameTests ??= {
    startsWith: CATALOGUE_NAME_CLAUSES.startsWith.split(" "),
    endsWith: CATALOGUE_NAME_CLAUSES.endsWith.split(" "),
    contains: CATALOGUE_NAME_CLAUSES.contains.split(" "),
    regex: CATALOGUE_NAME_CLAUSES.regex
      .split(" ")
      .map((source) => ({ prefix: literalPrefix(source), source })),
  };
  return (
    nameTests.startsWith.some((text) => lowerCase.startsWith(text)) ||
    nameTests.endsWith.some((text) => lowerCase.endsWith(text)) ||
    nameTests.contains.some((text) => lowerCase.includes(text)) ||
    nameTests.regex.some((expression) => acceptedByExpression(expression, lowerCase))
  );
}

/**
 * Whether `list` (texts separated by single spaces, none holding a space: the form of
 * llm/catalogue-name-clauses.ts) holds `text` as one of its texts.
 */
export function inList(list: string, text: string): boolean {
  if (text === "" || text.includes(" ")) {
    return false;
  }
  for (let at = list.indexOf(text); at !== -1; at = list.indexOf(text, at + 1)) {
    const end = at + text.length;
    if ((at === 0 || list[at - 1] === " ") && (end === list.length || list[end] === " ")) {
      return true;
    }
  }
  return false;
}

function acceptedByExpression(expression: GatedExpression, lowerCase: string): boolean {
  if (!lowerCase.startsWith(expression.prefix)) {
    return false;
  }
  expression.compiled ??= new RegExp(expression.source);
  return expression.compiled.test(lowerCase);
}

/**
 * The text every string that the regular expression `source` (no flags) accepts starts with:
 * after a leading `^`, its characters up to the first one with a meaning of its own, an escaped
 * punctuation character (`\.`) standing for itself; a character a quantifier follows is left out
 * (it may be absent or repeated). `""` when `source` does not start with `^` or holds a `|`
 * anywhere (an alternative of the whole expression need not start with `^`).
 */
export function literalPrefix(source: string): string {
  if (!source.startsWith("^") || source.includes("|")) {
    return "";
  }
  let prefix = "";
  for (let index = 1; index < source.length; index++) {
    let character = source.charAt(index);
    if (character === "\\") {
      // `\d`, `\w`, `\b`, `\u0041` …: classes, assertions, codes. Punctuation stands for itself.
      character = source.charAt(index + 1);
      if (character === "" || !PUNCTUATION.includes(character)) {
        return prefix;
      }
      index++;
    } else if (SYNTAX.includes(character)) {
      return prefix;
    }
    const next = source.charAt(index + 1);
    if (next !== "" && QUANTIFIERS.includes(next)) {
      return prefix;
    }
    prefix += character;
  }
  return prefix;
}

/** The punctuation characters that an escape makes stand for themselves (`_` aside). */
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~";
/** Characters with a meaning of their own in a regular expression outside a class. */
const SYNTAX = "^$.|?*+()[]{}";
/** The characters that start a quantifier. */
const QUANTIFIERS = "?*+{";

/** The catalogue's provider for our model id prefixes; absent = search every provider by name. */
const CATALOGUE_PROVIDERS: Readonly<Record<string, string>> = {
  openai: "openai",
  "openai-chat": "openai",
  anthropic: "anthropic",
};

/**
 * Looks a model up. `modelId` is ours, `<provider>:<model>` (e.g. `anthropic:claude-sonnet-4-5`).
 * Models served by `ollama` run locally: the catalogue's hosted price does not apply to them.
 */
function lookUp(
  modelId: string,
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
  },
): PriceCalculation | undefined {
  const separator = modelId.indexOf(":");
  const prefix = separator < 0 ? "" : modelId.slice(0, separator);
  const name = modelId.slice(separator + 1);
  if (name === "" || prefix === "ollama" || !mightBeCatalogued(name)) {
    return undefined;
  }
  const providerId = CATALOGUE_PROVIDERS[prefix];
  try {
    const options = providerId === undefined ? {} : { providerId };
    return loadCatalogue().calcPrice(usage, name, options) ?? undefined;
  } catch {
    // Usage the catalogue finds inconsistent (e.g. more cached than total tokens): no price.
    return undefined;
  }
}

/**
 * Windows looked up so far, by model id: the bundled data never changes while we run, and a
 * lookup takes about a third of a millisecond, which the compaction check would pay every turn.
 */
const knownWindows = new Map<string, number | undefined>();

/**
 * The catalogue's context window of `modelId`, in tokens, or undefined when the catalogue does not
 * know the model (or it runs on Ollama). The user's overrides and the defaults are applied by
 * `contextWindowOf` (llm/context-window.ts), which the rest of turnloop asks.
 */
export function catalogueContextWindow(modelId: string): number | undefined {
  const common = commonContextWindow(modelId);
  if (common !== undefined) {
    return common;
  }
  if (!knownWindows.has(modelId)) {
    const found = lookUp(modelId, { input_tokens: 0, output_tokens: 0 })?.model.context_window;
    knownWindows.set(modelId, found ?? undefined);
  }
  return knownWindows.get(modelId);
}

/**
 * Our ids `<provider>:<name>` whose provider's catalogue lists the bare model name `name`
 * (`gpt-4o` → `openai:gpt-4o`, `openai-chat:gpt-4o`; `claude-sonnet-4-5` →
 * `anthropic:claude-sonnet-4-5`), in {@link CATALOGUE_PROVIDERS}' order; empty when none does.
 * For the hint of a model given without a provider: it loads the catalogue unless
 * {@link COMMON_CONTEXT_WINDOWS} has the name, so it is asked only once a model failed to resolve.
 */
export function catalogueModelIds(name: string): string[] {
  return Object.keys(CATALOGUE_PROVIDERS)
    .map((prefix) => `${prefix}:${name}`)
    .filter(
      (modelId) =>
        commonContextWindow(modelId) !== undefined ||
        lookUp(modelId, { input_tokens: 0, output_tokens: 0 }) !== undefined,
    );
}

/**
 * ` (did you mean "openai:gpt-4o" or "openai-chat:gpt-4o"?)` for a bare model name the catalogue
 * lists ({@link catalogueModelIds}); `""` for any other.
 */
export function catalogueModelHint(name: string): string {
  const listed = name.includes(":") ? [] : catalogueModelIds(name);
  return listed.length === 0
    ? ""
    : ` (did you mean ${listed.map((modelId) => `"${modelId}"`).join(" or ")}?)`;
}

/** The window of `modelId` in {@link COMMON_CONTEXT_WINDOWS}, or undefined when it is not there. */
function commonContextWindow(modelId: string): number | undefined {
  const separator = modelId.indexOf(":");
  const providerId = CATALOGUE_PROVIDERS[modelId.slice(0, Math.max(separator, 0))];
  const windows = providerId === undefined ? undefined : COMMON_CONTEXT_WINDOWS[providerId];
  return windows !== undefined && Object.hasOwn(windows, modelId.slice(separator + 1))
    ? windows[modelId.slice(separator + 1)]
    : undefined;
}

/**
 * The price in USD of one request's `usage`, or undefined when the model's price is unknown or
 * the provider reported no token counts. `inputTokens` is the total input, cache reads and
 * writes included (as the AI SDK reports it and the catalogue expects).
 */
export function usageCost(modelId: string, usage: Usage): number | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) {
    return undefined;
  }
  const price = lookUp(modelId, {
    input_tokens: usage.inputTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    ...(usage.cacheReadTokens === undefined ? {} : { cache_read_tokens: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens === undefined ? {} : { cache_write_tokens: usage.cacheWriteTokens }),
  });
  return price === undefined || !Number.isFinite(price.total_price) ? undefined : price.total_price;
}
