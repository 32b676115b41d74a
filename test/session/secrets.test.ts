import { expect, test } from "vitest";
import { SecretStreamRedactor, secretValues } from "../../src/events/secrets.js";
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

test("the password of a URL any variable holds is a secret, as written and decoded", () => {
  expect(
    secretValues({
      TURNLOOP_DATABASE_URL: "postgres://turnloop:pa%40ss-word-1@db:5432/turnloop",
      http_proxy: "http://proxy-user:proxy-pass-9@proxy:3128",
      SHORT_URL: "postgres://u:short@db/x",
      README_URL: "postgres://turnloop:secret@db.internal:5432/turnloop",
      ANONYMOUS_URL: "postgres://turnloop@db/turnloop",
      PLAIN: "not a url: pa%40ss-word-1",
    }),
  ).toEqual([
    { name: "TURNLOOP_DATABASE_URL", value: "pa%40ss-word-1" },
    { name: "TURNLOOP_DATABASE_URL", value: "pa@ss-word-1" },
    { name: "http_proxy", value: "proxy-pass-9" },
    { name: "README_URL", value: "secret" },
  ]);
});

test("six characters is the floor: short passwords are secrets, `true` and `none` are not", () => {
  // A fresh user's trial: `hunter2` and the README's own `secret` were never redacted (floor 8).
  expect(
    secretValues({
      OTHER_TOKEN: "hunter2",
      DB_PASSWORD: "sekret",
      USE_AUTH: "true",
      API_KEY: "none",
      FLAG_SECRET: "12345",
    }),
  ).toEqual([
    { name: "OTHER_TOKEN", value: "hunter2" },
    { name: "DB_PASSWORD", value: "sekret" },
  ]);
});

test("with no secrets in the environment the line is unchanged", () => {
  expect(secretRedactor({ HOME: "/root" })('{"a":"b"}')).toBe('{"a":"b"}');
});

test("a byte stream is redacted however the chunks cut a secret, and other bytes pass unchanged", () => {
  const secret = "tok-ünïcode-0123456789";
  const prefix = Buffer.from([0xff, 0xfe, 0x00, 0x41]); // not UTF-8: must pass byte for byte
  const input = Buffer.concat([
    prefix,
    Buffer.from(`a ${secret} b ${secret}${secret} end`, "utf8"),
  ]);
  const expected = Buffer.concat([
    prefix,
    Buffer.from("a [redacted:API_TOKEN] b [redacted:API_TOKEN][redacted:API_TOKEN] end", "utf8"),
  ]);
  for (let cut = 1; cut < input.length; cut++) {
    for (const size of [1, 3, cut]) {
      const redactor = new SecretStreamRedactor(secretValues({ API_TOKEN: secret, HOME: "/h" }));
      const pieces: Buffer[] = [];
      for (let start = 0; start < input.length; start += size) {
        pieces.push(redactor.push(input.subarray(start, start + size)));
      }
      pieces.push(redactor.end());
      expect(Buffer.concat(pieces).equals(expected)).toBe(true);
    }
  }
});

test("with no secrets the stream passes through untouched", () => {
  const redactor = new SecretStreamRedactor(secretValues({ HOME: "/root" }));
  const chunk = Buffer.from("plain");
  expect(redactor.push(chunk)).toBe(chunk);
  expect(redactor.end().length).toBe(0);
});
