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

import { urlPortProblem } from "../events/url-port.js";

/** What a header's or an `env` variable's value is shown as. */
export const REDACTED = "[redacted]";

/** What a URL's password or secret query value is shown as. */
const URL_SECRET = "***";

/** Words in the names of query parameters whose values are secrets (`?token=`, `?api-key=`, `?sig=`). */
const SECRET_WORDS = "key|token|secret|passw|credential|auth|sig|session|code";

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

/** A URL's scheme (`https://`, `postgres://`). */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** What follows a URL's user information: a host (a name, an address, `[v6]`) and its port. */
const HOST_AND_PORT = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.%_~-]+)(?::\d*)?(?:[/?#\s]|$)/;

/** Schemes whose user name is a role, not a secret: PostgreSQL's ({@link isDatabaseUrl}). */
const ROLE_SCHEMES = /^postgres(ql)?:\/\/$/i;

/**
 * The index of the `@` ending the user part of `rest` (a URL after `://`), -1 if none; read as
 * text, wider than parsers (trial 42 F8): the last `@` before the path (`u:sec ret@h`,
 * `u:p@ss@h`), or after a `/?#` when a host follows and the part before holds `@` or `:`
 * (`u:a/b@h`, `u:p@ss#word@h`), not `http://h/p?mail=a@b`.
 */
function userInfoEnd(rest: string): number {
  const last = rest.lastIndexOf("@");
  const delimiter = rest.search(/[/?#]/);
  if (last < 0 || delimiter < 0 || last < delimiter) {
    return last;
  }
  const head = rest.slice(0, delimiter);
  if (/[@:]/.test(head) && HOST_AND_PORT.test(rest.slice(last + 1))) {
    return last;
  }
  return delimiter === 0 ? -1 : rest.lastIndexOf("@", delimiter - 1);
}

/** `url`'s scheme, user name, password (if any) and the rest, read as text (no parser's reading). */
export function userInfoOf(
  url: string,
): { scheme: string; user: string; password?: string; rest: string } | undefined {
  const scheme = SCHEME.exec(url)?.[0];
  if (scheme === undefined) {
    return undefined;
  }
  const after = url.slice(scheme.length);
  const end = userInfoEnd(after);
  if (end < 0) {
    return undefined;
  }
  const userInfo = after.slice(0, end);
  const colon = userInfo.indexOf(":");
  const rest = after.slice(end + 1);
  return colon < 0
    ? { scheme, user: userInfo, rest }
    : { scheme, user: userInfo.slice(0, colon), password: userInfo.slice(colon + 1), rest };
}

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
  const parts = userInfoOf(url);
  if (parts === undefined) {
    return url;
  }
  const { scheme, user, password, rest } = parts;
  if (password !== undefined) {
    return `${scheme}${user}:${URL_SECRET}@${rest}`;
  }
  return user === "" || ROLE_SCHEMES.test(scheme) ? url : `${scheme}${URL_SECRET}@${rest}`;
}

/** A secret-looking query parameter of a whole URL: its value ends at `&` or `#` alone. */
const SECRET_QUERY_IN_URL = new RegExp(
  `([?&][\\w.~%-]*(?:${SECRET_WORDS})[\\w.~%-]*=)[^&#]*`,
  "gi",
);

/**
 * `text` as a URL with its password, a lone user name (but a database URL's role) and its
 * secret-looking query values shown as `***` (`http://user:***@host/mcp?token=***`), however
 * they are spelled (percent-encoded or not, `@`, `#`, `/` and spaces in a password: see
 * {@link userInfoEnd}); the text itself when nothing is secret.
 */
export function redactedUrl(text: string): string {
  const shown = withoutUserSecret(text);
  const parts = userInfoOf(shown);
  const at =
    parts === undefined ? (SCHEME.exec(shown)?.[0].length ?? 0) : shown.length - parts.rest.length;
  return shown.slice(0, at) + shown.slice(at).replace(SECRET_QUERY_IN_URL, `$1${URL_SECRET}`);
}

/** `text` with every URL in it shown by {@link redactedUrl} and other secrets cut. */
export function redactedText(text: string): string {
  // Cut first: a `?token=` cut to `[redacted]` is then shown as `***` in its URL, as any other.
  return redactSecrets(text).replace(URL_IN_TEXT, (url) => redactedUrl(url));
}

/**
 * A command line (`process.argv`) as shown, joined by spaces: each argument whole, a URL (or an
 * option's `=URL`) by {@link redactedUrl} (a password may hold a space), others by {@link redactedText}.
 */
export function redactedArguments(args: readonly string[]): string {
  return args
    .map((argument) => {
      const value = /^(--[\w-]+=)?(.*)$/s.exec(argument);
      const url = value?.[2] ?? "";
      return SCHEME.test(url) ? `${value?.[1] ?? ""}${redactedUrl(url)}` : redactedText(argument);
    })
    .join(" ");
}

/**
 * A config value (a server's entry, a provider profile, a held key's value) as shown: every
 * value under `headers` or `env` replaced by `[redacted]`, secret-looking `args`
 * ({@link redactedServerArguments}), a string that is a URL by
 * {@link redactedUrl}, every other string by {@link redactedText}.
 * Returns a copy; the value given is not changed.
 */
export function redactedConfig(value: unknown): unknown {
  if (typeof value === "string") {
    // A value that is a URL is one whole: its password may hold a space.
    return SCHEME.test(value) ? redactedUrl(value) : redactedText(value);
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
        : key === "args" && Array.isArray(item)
          ? redactedServerArguments(item)
          : redactedConfig(item),
    ]),
  );
}

/** A command-line option whose name looks secret (`--token`, `--api-key`, `-password`). */
const SECRET_OPTION = new RegExp(`^-{1,2}[\\w.-]*(?:${SECRET_WORDS})[\\w.-]*$`, "i");

/** Values in the known formats of access tokens: GitHub's, Slack's, AWS access key ids. */
const TOKEN_FORMATS = /^(?:gh[pousr]_|github_pat_|xox[abpr]-|AKIA[0-9A-Z]{12})/;

/**
 * A server's `args` as shown (`turnloop config`, the trust questions): the value of an option
 * whose name looks secret, written `--token=…` or as the next argument (`--api-key …`), and an
 * argument in a known token format (`ghp_…`) as `[redacted]`; any other argument as
 * {@link redactedConfig} shows a string. What runs is never changed: only what is shown.
 */
export function redactedServerArguments(args: readonly unknown[]): unknown[] {
  return args.map((argument, index) => {
    const before = index === 0 ? undefined : args[index - 1];
    if (typeof argument !== "string") {
      return redactedConfig(argument);
    }
    const equals = argument.indexOf("=");
    if (argument.startsWith("-") && equals > 0 && SECRET_OPTION.test(argument.slice(0, equals))) {
      return `${argument.slice(0, equals + 1)}${REDACTED}`;
    }
    const afterSecretOption =
      typeof before === "string" && SECRET_OPTION.test(before) && !argument.startsWith("-");
    return afterSecretOption || TOKEN_FORMATS.test(argument) ? REDACTED : redactedConfig(argument);
  });
}

/** Whether `value` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isDatabaseUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * `url` as shown ({@link redactedUrl}: its password and secret query values such as
 * `?password=` or `?sslpassword=` as `***`, its user name, a role, kept), with a hint when its
 * password holds characters that end a URL's user part (`/`, `?`, `#`: the URL then names
 * another host or none) or it is no URL at all, as `pg` reads one (`postgres://u@/db?host=/run`,
 * a user and a socket folder, is one).
 */
export function redactDatabaseUrl(url: string): string {
  const shown = redactedUrl(url);
  const problem = urlPasswordProblem(url);
  if (problem !== undefined) {
    return `${shown} (${problem})`;
  }
  // As `pg` reads one: an empty host (`u@/db?host=/run/postgresql`) is a socket folder's URL.
  return URL.canParse(url) || URL.canParse(url.replace("@/", "@h/"))
    ? shown
    : `${shown} (${urlPortProblem(url) ?? "not a valid URL"})`;
}

/**
 * Why `url`'s password cannot be read as written (it holds `/`, `?` or `#`, where parsers end the
 * user part: `u:p@ss#word@h` is host `ss`); undefined when it can.
 */
export function urlPasswordProblem(url: string): string | undefined {
  const password = userInfoOf(url)?.password;
  return password !== undefined && /[/?#]/.test(password)
    ? "its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23"
    : undefined;
}
