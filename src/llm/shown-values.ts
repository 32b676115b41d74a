/**
 * Configuration values as a user sees them: the one redaction for every place turnloop shows a
 * config value (`turnloop config` in text and `--json`, `mcp list`, the trust questions and
 * `mcp trust`, an MCP server's failure on stderr and in its event). A header's value and an
 * `env` variable's value are never shown (`[redacted]`); in a URL, the password (or a user name
 * with no password, often a token) and the value of a query parameter whose name looks secret
 * (`token`, `key`, `secret`, `password`, `auth`, `sig`, `credential` …) are shown as `***`; in
 * other text, API keys (`sk-…`), bearer tokens and key query parameters are cut (failure-words.ts
 * `redactSecrets`, as in error messages).
 */

import { redactSecrets } from "./failure-words.js";

/** What a header's or an `env` variable's value is shown as. */
export const REDACTED = "[redacted]";

/** What a URL's password or secret query value is shown as. */
const URL_SECRET = "***";

/** Names of query parameters whose values are secrets (`?token=`, `?api_key=`, `?sig=`). */
const SECRET_PARAMETER = /key|token|secret|passw|credential|auth|sig|session|code/i;

/** Keys of a config object whose every value is a secret: a server's `headers` and `env`. */
const SECRET_MAPS = new Set(["headers", "env"]);

/** A URL with a scheme (`https://…`, `postgres://…`) inside a text, up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * `text` as a URL with its password, a lone user name and its secret-looking query values shown
 * as `***` (`http://user:***@host/mcp?token=***`); the text itself when nothing is secret or it is
 * no URL.
 */
export function redactedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.password !== "") {
    url.password = URL_SECRET;
    changed = true;
  } else if (url.username !== "") {
    url.username = URL_SECRET;
    changed = true;
  }
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) {
      url.searchParams.set(name, URL_SECRET);
      changed = true;
    }
  }
  return changed ? url.href : text;
}

/** `text` with every URL in it shown by {@link redactedUrl} and other secrets cut. */
export function redactedText(text: string): string {
  // Cut first: a `?token=` cut to `[redacted]` is then shown as `***` in its URL, as any other.
  return redactSecrets(text).replace(URL_IN_TEXT, (url) => redactedUrl(url));
}

/**
 * A config value (a server's entry, a provider profile, a held key's value) as shown: every
 * value under `headers` or `env` replaced by `[redacted]`, every string by {@link redactedText}.
 * Returns a copy; the value given is not changed.
 */
export function redactedConfig(value: unknown): unknown {
  if (typeof value === "string") {
    return redactedText(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => redactedConfig(item));
  }
  if (typeof value !== "object" || value === null) {
    return value;
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_MAPS.has(key) && typeof item === "object" && item !== null && !Array.isArray(item)
        ? Object.fromEntries(Object.keys(item).map((name) => [name, REDACTED]))
        : redactedConfig(item),
    ]),
  );
}
