/**
 * A PostgreSQL driver's reason as users may see it: `url`'s password cut where `pg` can have put
 * it (llm/shown-values.ts shows the URLs themselves). Loaded with the store's PostgreSQL path only.
 */

import { redactedText, redactedUrl, userInfoOf } from "../../llm/shown-values.js";

/** What a password is shown as (shown-values.ts shows a URL's so). */
const URL_SECRET = "***";

/**
 * `text` (a driver's error) with `url`'s password as `***` where the driver can have put it: in
 * a URL (its user part, {@link redactedText}) or the URL as written. A password the parser reads
 * whole never reaches `pg`'s messages, which name the user, host, database and file paths (a
 * user named as the password stays shown). One it reads otherwise (`p@ss#word`: host `ss`) may
 * land in the host, database or port `pg` names: then the written password, decoded, and each
 * such part of 4 characters or more taken from it are `***` anywhere in `text`.
 */
export function redactPassword(text: string, url: string): string {
  const shown = redactedText(text.split(url).join(redactedUrl(url)));
  const written = userInfoOf(url)?.password ?? "";
  const parsed = driverReading(url);
  if (written === "" || (parsed !== undefined && parsed.password === decoded(written))) {
    return shown;
  }
  const whole = [written, decoded(written)];
  const parts = Object.values(parsed ?? {})
    .flatMap((part) => [part, decoded(part)])
    .filter((part) => part.length > 3 && whole.some((value) => value.includes(part)));
  let masked = shown;
  const longestFirst = [...new Set([...whole, ...parts])].sort((a, b) => b.length - a.length);
  for (const value of longestFirst.filter((candidate) => candidate !== "")) {
    masked = masked.split(value).join(URL_SECRET);
  }
  return masked;
}

/**
 * `url`'s parts as `pg` reads them (pg-connection-string: spaces and stray `%` encoded first, an
 * empty host allowed), the password decoded; undefined when no parser takes it.
 */
function driverReading(url: string): Record<string, string> | undefined {
  const encoded = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url)
    ? encodeURI(url).replace(/%25(\d\d)/g, "%$1")
    : url;
  for (const candidate of [encoded, encoded.replace("@/", "@___DUMMY___/")]) {
    if (URL.canParse(candidate, "postgres://base")) {
      const { username, password, hostname, port, pathname } = new URL(
        candidate,
        "postgres://base",
      );
      return { username, password: decoded(password), hostname, port, pathname: pathname.slice(1) };
    }
  }
  return undefined;
}

/** `value` percent-decoded, or as it is when it is not valid percent-encoding. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
