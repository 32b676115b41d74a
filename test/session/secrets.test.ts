import { expect, test } from "vitest";
import { secretRedactor } from "../../src/session/secrets.js";

test("secret-looking variables are replaced inside JSON lines, escaped values included", () => {
  const redact = secretRedactor({
    OPENAI_API_KEY: "sk-abc123456789",
    GITHUB_TOKEN: 'ghp_"quoted"\\value',
    SHORT_TOKEN: "abc",
    PATH: "/usr/bin:/bin:/usr/local/bin",
  });
  const line = JSON.stringify({
    text: `key sk-abc123456789 and ghp_"quoted"\\value in /usr/bin abc`,
  });
  const redacted = redact(line);
  expect(JSON.parse(redacted)).toEqual({
    text: "key [redacted:OPENAI_API_KEY] and [redacted:GITHUB_TOKEN] in /usr/bin abc",
  });
});

test("with no secrets in the environment the line is unchanged", () => {
  expect(secretRedactor({ HOME: "/root" })('{"a":"b"}')).toBe('{"a":"b"}');
});
