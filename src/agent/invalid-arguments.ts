/**
 * What the model reads for a tool call whose arguments the reply assembler could not use as an
 * object (llm/reply-assembler.ts: `argumentsError: "invalid_json"`): text that is not JSON, with
 * the parser's reason and position (`Unterminated string in JSON at position 18`), told apart from
 * valid JSON of another type (`[1,2]`, `""`), which a model fixes differently (trial 41 F9).
 * `echoed` is the raw text as the message quotes it (cut when long).
 */
export function invalidArgumentsMessage(
  toolName: string,
  rawArguments: string | undefined,
  echoed: string,
): string {
  const what = notAnObject(rawArguments ?? "");
  return `Invalid arguments for '${toolName}': ${what} (received ${echoed}).`;
}

function notAnObject(raw: string): string {
  if (raw.trim() === "") {
    return "no arguments were sent; send a JSON object";
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `the arguments are not valid JSON: ${reason}`;
  }
  const type = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return `the arguments are valid JSON but ${type}, not a JSON object`;
}
