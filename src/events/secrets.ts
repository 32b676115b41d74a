/**
 * Which values are secrets, for every file turnloop writes (issue 11): `events.jsonl` (see
 * `session/secrets.ts`), saved full outputs of commands (`tools/command-output.ts`), and any file
 * added later (compaction summaries go to `events.jsonl`; MCP results cut for length are saved
 * through {@link SecretStreamRedactor} in `tools/mcp/tools.ts`, and so are tool results cut to a
 * turn's share of the window in `agent/result-budget.ts`; a new file under the session folder
 * must be written through it or the line redactor).
 */

/** Environment variables whose values are secrets: API keys, tokens, passwords. */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
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
 * whole: the values of secret-looking variables (names with KEY, TOKEN, SECRET, PASSWORD,
 * CREDENTIAL or AUTH), and the password of a URL any other variable holds
 * (`TURNLOOP_DATABASE_URL=postgres://user:password@…`, as written and decoded); each of
 * {@link MIN_SECRET_LENGTH} (6) characters or more.
 */
export function secretValues(environment: NodeJS.ProcessEnv): SecretValue[] {
  return Object.entries(environment)
    .flatMap(([name, value]) => secretsOf(name, value))
    .filter(({ value }) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.value.length - a.value.length);
}

function secretsOf(name: string, value: string | undefined): SecretValue[] {
  if (value === undefined) {
    return [];
  }
  if (SECRET_NAME.test(name)) {
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
 * Replaces secrets in a byte stream with `[redacted:NAME]`, whatever the bytes (the text is handled
 * as latin1, one character per byte, so output that is not UTF-8 passes unchanged) and however the
 * chunks cut a secret: the last bytes that could start one are held back until the next chunk.
 * Memory: at most one chunk plus the longest secret.
 */
export class SecretStreamRedactor {
  /** Each secret as the latin1 text of its UTF-8 bytes. */
  private readonly secrets: Array<{ bytes: string; marker: string }>;
  private readonly holdBack: number;
  private carry = "";

  constructor(secrets: readonly SecretValue[]) {
    this.secrets = secrets.map(({ name, value }) => ({
      bytes: Buffer.from(value, "utf8").toString("latin1"),
      marker: `[redacted:${name}]`,
    }));
    this.holdBack = Math.max(0, ...this.secrets.map((secret) => secret.bytes.length - 1));
  }

  /** The bytes of `chunk` that are safe to write now, redacted. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) {
      return chunk;
    }
    const text = this.redact(this.carry + chunk.toString("latin1"));
    const cut = Math.max(0, text.length - this.holdBack);
    this.carry = text.slice(cut);
    return Buffer.from(text.slice(0, cut), "latin1");
  }

  /** What was held back, at the end of the stream. */
  end(): Buffer {
    const rest = this.carry;
    this.carry = "";
    return Buffer.from(this.redact(rest), "latin1");
  }

  private redact(text: string): string {
    let result = text;
    for (const { bytes, marker } of this.secrets) {
      if (result.includes(bytes)) {
        result = result.split(bytes).join(marker);
      }
    }
    return result;
  }
}
