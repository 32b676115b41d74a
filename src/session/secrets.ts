import type { EventInput } from "../events/events.js";
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

/**
 * An event rewriter with the replacements of {@link secretRedactor}, applied to every string in
 * the event's `data`. A session applies it once, before the event is written, folded into the
 * history or sent to anyone, so what a client sees, what the model is sent next and what a
 * resumed session reads are the same text. Returns the input itself when nothing matched.
 */
export function eventRedactor(environment: NodeJS.ProcessEnv): (input: EventInput) => EventInput {
  if (secretValues(environment).length === 0) {
    return (input) => input;
  }
  const redactLine = secretRedactor(environment);
  return (input) => {
    const text = JSON.stringify(input.data);
    const redacted = redactLine(text);
    return redacted === text ? input : ({ ...input, data: JSON.parse(redacted) } as EventInput);
  };
}
