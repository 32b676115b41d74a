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
