/**
 * Secrets in what turnloop shows, writes or says: the one redaction for every place a config
 * value, a URL or an error text leaves the process or reaches a store (`turnloop config` in text
 * and `--json`, `mcp list`, the trust questions and `mcp trust`, an MCP server's failure, a model
 * request's failure in the log and on every face, the command line recorded as a session's
 * holder in its lock file or `sessions.owner` and quoted in refusals, a database URL anywhere).
 * A header's value and an `env` variable's value are never shown (`[redacted]`); in a URL, the
 * password (or a user name with no password, often a token; but not a database URL's, which
 * names a role) and the value of a query parameter whose name looks secret (`token`, `key`,
 * `secret`, `password`, `auth`, `sig`, `credential` …) are shown as `***`; in other text, API
 * keys (`sk-…`), bearer tokens and the values of the same query parameters are cut
 * ({@link redactSecrets}, as in error messages: a request URL with `?api-key=…` among them). A database URL (`--store`, `TURNLOOP_DATABASE_URL`, a config file's `store`) is
 * shown as any URL: `postgres://user:***@host/db` in every message, error and `turnloop config`
 * (issue 22: its password never appears in logs, errors or the config listing). No imports, and
 * one module: every layer from llm/ up may use it, and the argument parser's check of `--store`
 * loads it at start-up anyway.
 */

/** What a header's or an `env` variable's value is shown as. */
export const REDACTED = "[redacted]";

/** What a URL's password or secret query value is shown as. */
const URL_SECRET = "***";

/** Words in the names of query parameters whose values are secrets (`?token=`, `?api-key=`, `?sig=`). */
const SECRET_WORDS = "key|token|secret|passw|credential|auth|sig|session|code";

/** A name of a query parameter whose value is a secret. */
const SECRET_PARAMETER = new RegExp(SECRET_WORDS, "i");

/**
 * Such a parameter in a text, its name (with `?` or `&` before it and `=` after it) and its value
 * apart: the value ends at `&`, a space, a quote, `#` or `)` (a URL put in brackets).
 */
const SECRET_QUERY_IN_TEXT = new RegExp(
  `([?&][\\w.~%-]*(?:${SECRET_WORDS})[\\w.~%-]*=)[^&\\s"'#)<>\`]+`,
  "gi",
);

/** Keys of a config object whose every value is a secret: a server's `headers` and `env`. */
const SECRET_MAPS = new Set(["headers", "env"]);

/** A URL with a scheme (`https://…`, `postgres://…`) inside a text, up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * A URL's scheme and user information (`user:password@`, up to the authority's last `@`, as the
 * WHATWG URL parser reads it), matched as text so that a URL no parser takes is covered too.
 */
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/i;

/** Schemes whose user name is a role, not a secret: PostgreSQL's ({@link isDatabaseUrl}). */
const ROLE_SCHEMES = /^postgres(ql)?:\/\/$/i;

/**
 * Removes API keys, bearer tokens and the values of query parameters whose names look secret
 * (`?api-key=[redacted]`: the names {@link redactedUrl} hides) and the password of every URL
 * (`user:***@`; a lone user name, often a token, as `***@`) from a text.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(sk-(?:ant-)?[A-Za-z0-9_-]{6})[A-Za-z0-9_-]{8,}/g, "$1…[redacted]")
    .replace(/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, "$1[redacted]")
    .replace(SECRET_QUERY_IN_TEXT, "$1[redacted]")
    .replace(URL_IN_TEXT, (url) => withoutUserSecret(url));
}

/** `url` (text) with its password, or a lone user name outside {@link ROLE_SCHEMES}, as `***`. */
function withoutUserSecret(url: string): string {
  return url.replace(USER_INFO, (whole, scheme: string, userInfo: string) => {
    const colon = userInfo.indexOf(":");
    if (colon >= 0) {
      return `${scheme}${userInfo.slice(0, colon)}:${URL_SECRET}@`;
    }
    return userInfo === "" || ROLE_SCHEMES.test(scheme) ? whole : `${scheme}${URL_SECRET}@`;
  });
}

/**
 * `text` as a URL with its password, a lone user name (but a database URL's role) and its
 * secret-looking query values shown as `***` (`http://user:***@host/mcp?token=***`); the text
 * itself when nothing is secret; a text no URL parser takes with only its user information
 * hidden.
 */
export function redactedUrl(text: string): string {
  const shown = withoutUserSecret(text);
  let url: URL;
  try {
    url = new URL(shown);
  } catch {
    return shown;
  }
  let changed = false;
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) {
      url.searchParams.set(name, URL_SECRET);
      changed = true;
    }
  }
  return changed ? url.href : shown;
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

/** Whether `value` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isDatabaseUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * `url` as shown ({@link redactedUrl}: its password and secret query values such as
 * `?password=` or `?sslpassword=` as `***`, its user name, a role, kept); a text that is not a URL
 * is returned as `postgres://… (not a valid URL)`.
 */
export function redactDatabaseUrl(url: string): string {
  return URL.canParse(url) ? redactedUrl(url) : "postgres://… (not a valid URL)";
}

/** `text` with every occurrence of `url`'s password replaced by `***` (for driver errors). */
export function redactPassword(text: string, url: string): string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password === "" ? text : text.split(password).join(URL_SECRET);
}
