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
