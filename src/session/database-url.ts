/**
 * Database URLs as a user may see them: `postgres://user:secret@host/db` is shown as
 * `postgres://user:***@host/db` in every message, error and `turnloop config` (issue 22: the
 * password never appears in logs, errors or the config listing).
 */

/** Whether `value` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isDatabaseUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** `url` with its password replaced by `***`; a text that is not a URL is returned as `postgres://…`. */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "postgres://… (not a valid URL)";
  }
  if (parsed.password !== "") {
    parsed.password = "***";
  }
  for (const key of [...parsed.searchParams.keys()]) {
    if (/^(password|sslpassword|sslkey)$/i.test(key)) {
      parsed.searchParams.set(key, "***");
    }
  }
  return parsed.href;
}

/** `text` with every occurrence of `url`'s password replaced by `***` (for driver errors). */
export function redactPassword(text: string, url: string): string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password === "" ? text : text.split(password).join("***");
}
