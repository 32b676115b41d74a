import { secretValues } from "../events/secrets.js";

/**
 * A line rewriter that replaces the values of secret-looking environment variables
 * ({@link secretValues}) with `[redacted:NAME]`, so keys never reach `events.jsonl` even when a
 * tool prints them. Values are matched as they appear inside JSON strings (escaped).
 */
export function secretRedactor(environment: NodeJS.ProcessEnv): (line: string) => string {
  const secrets = secretValues(environment).map(
    ({ name, value }) => [name, JSON.stringify(value).slice(1, -1)] as const,
  );
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
