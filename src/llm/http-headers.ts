/**
 * HTTP headers without Node's global `Headers` (touching it loads undici, about 6 MiB of resident
 * memory, issue 26; figures in bench/notes/targets.md): the {@link HeaderList} of requests and
 * responses, whether a value can be sent at all, and the wait a `Retry-After` asks for.
 */

/** What `Headers` may be built from: a record, `[name, value]` pairs, or anything iterable of them. */
export type HeaderInit =
  | Record<string, string | readonly string[] | undefined>
  | Iterable<readonly [string, string]>
  | Iterable<readonly string[]>;

/**
 * A `Headers` without undici: names lower-cased, values of one name joined with `", "` (as the
 * Fetch standard combines them), iterated sorted by name. Also what scripts/bundle.mjs gives the
 * AI SDK's provider-utils in place of the global `Headers`.
 */
export class HeaderList {
  readonly #values = new Map<string, string>();
  /**
   * The names in the order they are iterated, kept until a name is added or deleted: the AI SDK
   * iterates a request's and a response's headers several times each (`extractResponseHeaders`
   * twice per response), and each sort made a work array (bench/notes/turn37.md).
   */
  #sortedNames: string[] | undefined;

  /** @throws TypeError for a pair that is not two strings. */
  constructor(init?: HeaderInit | null) {
    if (init === undefined || init === null) {
      return;
    }
    if (Array.isArray(init)) {
      // Indexed: what most callers pass is a record or an array, walked without an iterator.
      for (let index = 0; index < init.length; index++) {
        this.#appendPair(init[index] as readonly string[]);
      }
      return;
    }
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        this.#appendPair(pair);
      }
      return;
    }
    const names = Object.keys(init);
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string;
      const value = init[name];
      if (typeof value === "string") {
        this.append(name, value);
      } else if (value !== undefined) {
        for (const each of value) {
          this.append(name, each);
        }
      }
    }
  }

  #appendPair(pair: readonly string[]): void {
    const [name, value] = pair;
    if (pair.length !== 2 || name === undefined || value === undefined) {
      throw new TypeError("Headers: each header must be a [name, value] pair");
    }
    this.append(name, value);
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const current = this.#values.get(key);
    const trimmed = String(value).trim();
    if (current === undefined) {
      this.#sortedNames = undefined;
    }
    this.#values.set(key, current === undefined ? trimmed : `${current}, ${trimmed}`);
  }

  set(name: string, value: string): void {
    const key = name.toLowerCase();
    if (!this.#values.has(key)) {
      this.#sortedNames = undefined;
    }
    this.#values.set(key, String(value).trim());
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  delete(name: string): void {
    if (this.#values.delete(name.toLowerCase())) {
      this.#sortedNames = undefined;
    }
  }

  forEach(callback: (value: string, name: string, headers: HeaderList) => void): void {
    for (const [name, value] of this.entries()) {
      callback(value, name, this);
    }
  }

  *entries(): IterableIterator<[string, string]> {
    // The names as they are at the first step (a change after it is not seen, as before).
    this.#sortedNames ??= this.#namesInOrder();
    const names = this.#sortedNames;
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string;
      yield [name, this.#values.get(name) ?? ""];
    }
  }

  /**
   * The names sorted by UTF-16 code units (as `Array.prototype.sort` without a comparator), each
   * put in its place as it is read: a list holds a few dozen names at most, and `sort` made work
   * arrays of its own for every list iterated (3.3 KiB of a view turn, bench/notes/turn39.md).
   */
  #namesInOrder(): string[] {
    const names: string[] = [];
    this.#values.forEach((_value, name) => {
      let index = names.length;
      names.push(name);
      for (; index > 0 && (names[index - 1] as string) > name; index--) {
        names[index] = names[index - 1] as string;
      }
      names[index] = name;
    });
    return names;
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) {
      yield name;
    }
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) {
      yield value;
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /** The headers as a plain record, for `node:http`. */
  toRecord(): Record<string, string> {
    return Object.fromEntries(this.#values);
  }
}

/**
 * The first character of `value` an HTTP header cannot carry, as Node's `fetch` takes field
 * values (RFC 9110 §5.5: visible ASCII, space, tab, obs-text U+0080–U+00FF): a character above
 * U+00FF (the `…` of a copied placeholder key) or a control character other than tab.
 * @returns its index and UTF-16 code, or `undefined` when every character can be sent.
 */
export function unsendableHeaderCharacter(
  value: string,
): { index: number; code: number } | undefined {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code > 0xff || (code < 0x20 && code !== 0x09) || code === 0x7f) {
      return { index, code };
    }
  }
  return undefined;
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). Returns ms or undefined. */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) {
    return undefined;
  }
  const milliseconds = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) {
    return milliseconds;
  }
  const value = headers["retry-after"];
  if (value === undefined) {
    return undefined;
  }
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return seconds * 1000;
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
