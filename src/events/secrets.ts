/**
 * Which values are secrets, for every file turnloop writes (issue 11): `events.jsonl` (see
 * `session/secrets.ts`), saved full outputs of commands (`tools/command-output.ts`), and any file
 * added later (compaction summaries go to `events.jsonl`; MCP results cut for length are saved
 * through {@link SecretStreamRedactor} in `tools/mcp/tools.ts`, and so are tool results cut to a
 * turn's share of the window in `agent/result-budget.ts`; a new file under the session folder
 * must be written through it or the line redactor).
 */

/**
 * A segment of a variable's name (upper case) that says its value is a secret: one that is or
 * ends with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASS or PASSPHRASE, plural too (`API_KEY`,
 * `APIKEY`, `GITHUB_TOKEN`, `PGPASSWORD`, `SSHPASS`, `SECRETS`), or starts with SECRET, PASSWORD
 * or PASSWD (`SECRETVALUE`). Not TOKEN or KEY as a start: `TOKENIZERS_PARALLELISM`, `KEYMAP`,
 * `KEYBOARD` are settings.
 */
const SECRET_SEGMENT =
  /^(?:.*(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|PASSPHRASE)S?|(?:SECRET|PASSWORD|PASSWD).*)$/;
/** Ordinary words that end as {@link SECRET_SEGMENT} reads a secret (`MONKEY_PATCH`, `BYPASS`). */
const ORDINARY_WORDS: ReadonlySet<string> = new Set([
  "MONKEY",
  "DONKEY",
  "TURKEY",
  "HOCKEY",
  "JOCKEY",
  "WHISKEY",
  "HOTKEY",
  "BYPASS",
  "COMPASS",
  "ENCOMPASS",
  "SURPASS",
  "TRESPASS",
  "OVERPASS",
  "UNDERPASS",
]);
/** Whether `segment` is one of {@link ORDINARY_WORDS}, or its plural (`MONKEYS`). */
function isOrdinaryWord(segment: string): boolean {
  return ORDINARY_WORDS.has(segment) || ORDINARY_WORDS.has(segment.replace(/S$/, ""));
}

/**
 * Segments that name credentials: CRED or CREDS as one, CREDENTIAL(S) anywhere in one
 * (`DEPLOY_CREDS`, `GOOGLE_APPLICATION_CREDENTIALS`), AUTH as one or at its end (`BASIC_AUTH`,
 * `NPM_CONFIG__AUTH`, `GITHUB_OAUTH`; not `GIT_AUTHOR_NAME`, `XAUTHORITY`). They say less than
 * {@link SECRET_SEGMENT}'s words, so a name that holds one is a secret's only when it does not say
 * it holds a place or a setting ({@link CREDENTIAL_SETTING_WORDS}).
 */
const CREDENTIAL_SEGMENT = /^(?:CREDS?|.*CREDENTIALS?.*|.*AUTH)$/;

/**
 * The last segments of a name that holds a place or a setting about credentials rather than
 * credentials (`SSH_AUTH_SOCK`, `AWS_SHARED_CREDENTIALS_FILE`, `AUTH_DOMAIN`, `AUTH_TYPE`), and
 * the first ones of a switch (`USE_AUTH`, `DISABLE_AUTH`).
 */
const CREDENTIAL_SETTING_WORDS = {
  last: new Set([
    ...["SOCK", "SOCKET", "FILE", "FILES", "PATH", "DIR", "URL", "URI", "HOST", "PORT"],
    ...["DOMAIN", "TYPE", "MODE", "METHOD", "PROVIDER", "ENABLED", "DISABLED", "REQUIRED"],
  ]),
  first: new Set(["USE", "ENABLE", "DISABLE", "NO", "SKIP", "REQUIRE"]),
};

/**
 * Kinds of token a name's last segment names, after the first and a version (`V2`) aside: JWT,
 * plural too, or a segment ending so (`CI_JOB_JWT`, `CI_JOB_JWT_V2`: GitLab's job tokens), LOGIN
 * (`SONAR_LOGIN`: SonarQube's login token) and PAT (`GH_PAT`, `AZURE_DEVOPS_EXT_PAT`: a personal
 * access token). Only last: `JWT_ISSUER`, `LOGIN_SHELL` and `LOGNAME` are settings (trial 47 F3).
 */
const TOKEN_KIND_LAST = /^(?:.*JWTS?|LOGIN|PAT)$/;

/** Whether a name's `segments` end with {@link TOKEN_KIND_LAST}, a version (`V2`) aside. */
function endsWithTokenKind(segments: readonly string[]): boolean {
  let end = segments.length;
  while (end > 1 && /^V\d+$/.test(segments[end - 1] ?? "")) {
    end -= 1;
  }
  return end > 1 && TOKEN_KIND_LAST.test(segments[end - 1] ?? "");
}

/** The segments of a variable's name, upper case: split on `_`, `-` and `.`. */
function nameSegments(name: string): string[] {
  return name.toUpperCase().split(/[_.-]/);
}

/**
 * Whether an environment variable's name says its value is a secret, the one rule by which
 * commands lose a variable (session/command-environment.ts) and its value is redacted
 * ({@link secretValues}): one of its segments (split on `_`, `-`, `.`; any case) is or ends with
 * KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASS or PASSPHRASE, plural too, but for ordinary words
 * (`MONKEY`, `BYPASS`), or starts with SECRET, PASSWORD or PASSWD, or is PWD after the first
 * (`MYSQL_PWD`; `PWD` and `OLDPWD` are the shell's folders), or names credentials
 * ({@link CREDENTIAL_SEGMENT}: CRED, CREDS, CREDENTIAL(S), AUTH) in a name that holds no place or
 * setting ({@link CREDENTIAL_SETTING_WORDS}), or ends with a kind of token ({@link
 * TOKEN_KIND_LAST}: JWT, LOGIN, PAT). `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`,
 * `npm_token`, `DEPLOY_CREDS`, `BASIC_AUTH`, `CI_JOB_JWT_V2`, `SONAR_LOGIN` are; `TOKENIZERS_PARALLELISM`,
 * `XKB_DEFAULT_KEYMAP`, `MONKEY_PATCH`, `GIT_AUTHOR_NAME` and `SSH_AUTH_SOCK` (a socket's path)
 * are not.
 */
export function isSecretName(name: string): boolean {
  const segments = nameSegments(name);
  return (
    endsWithTokenKind(segments) ||
    segments.some(
      (segment, index) =>
        (SECRET_SEGMENT.test(segment) && !isOrdinaryWord(segment)) ||
        (index > 0 && segment === "PWD") ||
        (CREDENTIAL_SEGMENT.test(segment) && !holdsCredentialSetting(segments)),
    )
  );
}

/** Whether a name's `segments` say it holds a place or a setting ({@link CREDENTIAL_SETTING_WORDS}). */
function holdsCredentialSetting(segments: readonly string[]): boolean {
  return (
    CREDENTIAL_SETTING_WORDS.last.has(segments.at(-1) ?? "") ||
    CREDENTIAL_SETTING_WORDS.first.has(segments[0] ?? "")
  );
}

/**
 * Shorter values are too likely to occur by chance (`1`, `true`, `false`, `none`) to be worth
 * replacing everywhere. Six keeps short real passwords (`secret`, the README's PostgreSQL example;
 * `hunter2`): it was 8, and those reached the model and the log (a fresh user's trial).
 */
const MIN_SECRET_LENGTH = 6;

/** One secret: the variable's name and its value. */
export interface SecretValue {
  name: string;
  value: string;
}

/** The password of a URL with credentials (`scheme://user:password@host…`), as written in it. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s:]*:([^/?#@\s]+)@/i;

/**
 * The secrets of the environment, longest first, so a value that contains another is replaced
 * whole: the values of secret-looking variables ({@link isSecretName}, the names commands do not
 * get) and of `keyVariables` whatever their names (config profiles' `apiKeyEnv`),
 * and the password of a URL any other variable holds
 * (`TURNLOOP_DATABASE_URL=postgres://user:password@…`, as written and decoded); each of
 * {@link MIN_SECRET_LENGTH} (6) characters or more.
 */
export function secretValues(
  environment: NodeJS.ProcessEnv,
  keyVariables: readonly string[] = [],
): SecretValue[] {
  return Object.entries(environment)
    .flatMap(([name, value]) =>
      keyVariables.includes(name) && value !== undefined
        ? [{ name, value }]
        : secretsOf(name, value),
    )
    .filter(({ value }) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.value.length - a.value.length);
}

function secretsOf(name: string, value: string | undefined): SecretValue[] {
  if (value === undefined) {
    return [];
  }
  if (isSecretName(name)) {
    return [{ name, value }];
  }
  const password = URL_PASSWORD.exec(value)?.[1];
  if (password === undefined) {
    return [];
  }
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoded as a URL should be: the text as written is the secret.
  }
  const forms = decoded === password ? [password] : [password, decoded];
  return forms.map((form) => ({ name, value: form }));
}

/**
 * A secret of this many characters or more is replaced wherever it appears, even glued to other
 * text: a long random key does not occur by chance inside another word.
 */
export const ANYWHERE_LENGTH = 16;
/** What continues a word: ASCII letters, digits and `_` (as in `\w`). */
export const WORD_CHARACTER = /[A-Za-z0-9_]/;
const NOT_AFTER_WORD = "(?<![A-Za-z0-9_])";
const NOT_BEFORE_WORD = "(?![A-Za-z0-9_])";

/**
 * Where a secret is replaced. One of {@link ANYWHERE_LENGTH} (16) characters or more: wherever it
 * appears. A shorter one: where it is a whole token, not part of a longer word, so a password
 * `secret` is replaced in `KEY=secret`, `user:secret@host`, `"secret"` and `secret.` but not in
 * `secretive` or `my_secret1`. Precisely: where the secret begins with a letter, digit or `_`, the
 * character before it is none of those (or the text begins there), and likewise where it ends.
 * Letters are ASCII letters: a secret glued to `é` is replaced.
 */
export interface Replacements {
  /** Every secret as an alternative, longest first, with its bounds; global. */
  pattern: RegExp;
  /** The marker for each secret's text. */
  markers: Map<string, string>;
  /** The longest secret's length in this form. */
  longest: number;
}

/** The replacements of `secrets`, each written by `form` (its UTF-16 text or its UTF-8 bytes). */
export function replacementsOf(
  secrets: readonly SecretValue[],
  form: (value: string) => string,
): Replacements | undefined {
  if (secrets.length === 0) {
    return undefined;
  }
  const markers = new Map<string, string>();
  const alternatives = secrets
    .map(({ name, value }) => ({
      name,
      text: form(value),
      anywhere: value.length >= ANYWHERE_LENGTH,
    }))
    .sort((a, b) => b.text.length - a.text.length)
    .map(({ name, text, anywhere }) => {
      if (!markers.has(text)) {
        markers.set(text, `[redacted:${name}]`);
      }
      const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (anywhere) {
        return escaped;
      }
      const start = WORD_CHARACTER.test(text.charAt(0)) ? NOT_AFTER_WORD : "";
      const end = WORD_CHARACTER.test(text.charAt(text.length - 1)) ? NOT_BEFORE_WORD : "";
      return `${start}${escaped}${end}`;
    });
  const longest = Math.max(...[...markers.keys()].map((text) => text.length));
  return { pattern: new RegExp(alternatives.join("|"), "g"), markers, longest };
}

/**
 * A function that replaces secrets in a text with `[redacted:NAME]`, where
 * {@link Replacements} says; the text's ends bound a secret as spaces do.
 */
export function textRedactor(secrets: readonly SecretValue[]): (text: string) => string {
  const replacements = replacementsOf(secrets, (value) => value);
  if (replacements === undefined) {
    return (text) => text;
  }
  const { pattern, markers } = replacements;
  return (text) => text.replace(pattern, (found) => markers.get(found) ?? found);
}

/**
 * Replaces secrets in a byte stream with `[redacted:NAME]`, where {@link Replacements} says,
 * whatever the bytes (the text is handled as latin1, one character per byte, so output that is not
 * UTF-8 passes unchanged; a byte of a UTF-8 letter that is not ASCII ends a word) and however the
 * chunks cut a secret: the bytes that could start one are held back until the next chunk shows
 * the byte after it. The result is the same as redacting the whole stream at once.
 * Memory: at most one chunk plus the longest secret.
 */
export class SecretStreamRedactor {
  private readonly replacements: Replacements | undefined;
  /** Bytes received and not yet written, unredacted. */
  private pending = "";
  /** The last byte written (as received), which bounds a secret at the start of `pending`. */
  private before = "";

  constructor(secrets: readonly SecretValue[]) {
    this.replacements = replacementsOf(secrets, (value) =>
      Buffer.from(value, "utf8").toString("latin1"),
    );
  }

  /** The bytes of `chunk` that are safe to write now, redacted. */
  push(chunk: Buffer): Buffer {
    if (this.replacements === undefined) {
      return chunk;
    }
    const text = this.pending + chunk.toString("latin1");
    // A secret starting before `limit` ends at least one byte before the text does, so the byte
    // after it is known.
    return this.write(text, Math.max(0, text.length - this.replacements.longest));
  }

  /** What was held back, at the end of the stream. */
  end(): Buffer {
    return this.write(this.pending, this.pending.length);
  }

  /** Writes `text` redacted up to `limit` (or the end of a secret that starts before it). */
  private write(text: string, limit: number): Buffer {
    if (this.replacements === undefined) {
      return Buffer.alloc(0);
    }
    const released = releaseRedacted(this.replacements, this.before, text, limit);
    this.before = released.before;
    this.pending = released.pending;
    return Buffer.from(released.output, "latin1");
  }
}

/**
 * One step of a stream's redaction (this file's {@link SecretStreamRedactor} and
 * session/secrets.ts `TextStreamRedactor`): `text` (what was held, then what arrived), after
 * `before` (the last character released, which bounds a secret at the start of `text`), redacted
 * up to `limit` or to the end of a secret that starts before it. @returns the redacted `output`,
 * the new `before`, and what is still `pending` (unredacted).
 */
export function releaseRedacted(
  replacements: Replacements,
  before: string,
  text: string,
  limit: number,
): { output: string; before: string; pending: string } {
  const { pattern, markers } = replacements;
  const offset = before.length;
  const context = before + text;
  let output = "";
  let written = offset;
  pattern.lastIndex = offset;
  for (let found = pattern.exec(context); found !== null; found = pattern.exec(context)) {
    if (found.index - offset >= limit) {
      break;
    }
    output += context.slice(written, found.index) + (markers.get(found[0]) ?? found[0]);
    written = found.index + found[0].length;
  }
  const end = Math.max(written, offset + limit);
  output += context.slice(written, end);
  return {
    output,
    before: end > offset ? context.charAt(end - 1) : before,
    pending: context.slice(end),
  };
}
