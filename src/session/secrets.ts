/** Environment variables whose values are secrets: API keys, tokens, passwords. */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Shorter values are too likely to occur by chance (`1`, `true`) to be worth replacing. */
const MIN_SECRET_LENGTH = 8;

/**
 * A line rewriter that replaces the values of secret-looking environment variables (names with
 * KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH; values of 8 characters or more) with
 * `[redacted:NAME]`, so keys never reach `events.jsonl` even when a tool prints them. Values are
 * matched as they appear inside JSON strings (escaped).
 */
export function secretRedactor(environment: NodeJS.ProcessEnv): (line: string) => string {
  const secrets = Object.entries(environment)
    .filter((entry): entry is [string, string] => SECRET_NAME.test(entry[0]))
    .filter(([, value]) => value !== undefined && value.length >= MIN_SECRET_LENGTH)
    .map(([name, value]) => [name, JSON.stringify(value).slice(1, -1)] as const)
    .sort((a, b) => b[1].length - a[1].length);
  if (secrets.length === 0) {
    return (line) => line;
  }
  return (line) => {
    let result = line;
    for (const [name, value] of secrets) {
      if (result.includes(value)) {
        result = result.split(value).join(`[redacted:${name}]`);
      }
    }
    return result;
  };
}
