import { expect, test } from "vitest";
import type { EventInput } from "../../src/events/events.js";
import { SecretStreamRedactor, secretValues } from "../../src/events/secrets.js";
import { eventRedactor, secretRedactor } from "../../src/session/secrets.js";

test("secret-looking variables are replaced in every string of an event, escaped values included", () => {
  const redact = eventRedactor({
    OPENAI_API_KEY: "sk-abc123456789",
    GITHUB_TOKEN: 'ghp_"quoted"\\value',
    SHORT_TOKEN: "abc",
    PATH: "/usr/bin:/bin:/usr/local/bin",
  });
  const input: EventInput = {
    type: "user.message",
    data: {
      source: "user",
      content: `key sk-abc123456789 and ghp_"quoted"\\value in /usr/bin abc`,
    },
  };
  expect(redact(input).data).toEqual({
    source: "user",
    content: "key [redacted:OPENAI_API_KEY] and [redacted:GITHUB_TOKEN] in /usr/bin abc",
  });
  const untouched: EventInput = {
    type: "user.message",
    data: { source: "user", content: "nothing here" },
  };
  expect(redact(untouched)).toBe(untouched);
});

test("an event holding a string of a mebibyte or more is searched where it is: its secrets, in strings and keys, replaced", () => {
  const redact = eventRedactor({ OPENAI_API_KEY: "sk-abc123456789", GITHUB_TOKEN: 'ghp_"q"\\v' });
  const long = "x".repeat(1_048_576);
  // Keys that hold secrets are not in any event type: the data is written here as any JSON.
  const input = {
    type: "tool.execution_complete",
    data: {
      toolCallId: "call-1",
      success: true,
      result: { content: `${long} sk-abc123456789`, detailedContent: long },
      toolTelemetry: { 'ghp_"q"\\v': [long, 'ghp_"q"\\v'] },
    },
  } as unknown as EventInput;
  expect(redact(input).data).toEqual({
    toolCallId: "call-1",
    success: true,
    result: { content: `${long} [redacted:OPENAI_API_KEY]`, detailedContent: long },
    toolTelemetry: { "[redacted:GITHUB_TOKEN]": [long, "[redacted:GITHUB_TOKEN]"] },
  });
  const untouched: EventInput = {
    type: "user.message",
    data: { source: "user", content: `${long} sk-abc12345678 ghp_q` },
  };
  expect(redact(untouched)).toBe(untouched);
});

test("a streamed delta's text is searched where it is: its secrets replaced, other deltas returned as they came", () => {
  const redact = eventRedactor({
    OPENAI_API_KEY: "sk-abc123456789",
    GITHUB_TOKEN: 'ghp_"quoted"\\value',
    DB_PASSWORD: "secret",
  });
  const messageId = "5b0c7a52-55a4-4ad4-9d2c-0f5d4c1e2a10";
  const deltas: EventInput[] = [
    {
      type: "assistant.message_delta",
      data: { messageId, deltaContent: 'key sk-abc123456789, ghp_"quoted"\\value' },
    },
    { type: "assistant.reasoning_delta", data: { messageId, deltaContent: "it is secret." } },
  ];
  expect(deltas.map((delta) => redact(delta))).toEqual([
    {
      type: "assistant.message_delta",
      data: { messageId, deltaContent: "key [redacted:OPENAI_API_KEY], [redacted:GITHUB_TOKEN]" },
    },
    {
      type: "assistant.reasoning_delta",
      data: { messageId, deltaContent: "it is [redacted:DB_PASSWORD]." },
    },
  ]);
  for (const deltaContent of ["plain text", "secretive", 'ghp_"quoted"', ""]) {
    const untouched: EventInput = {
      type: "assistant.message_delta",
      data: { messageId, deltaContent },
    };
    expect(redact(untouched)).toBe(untouched);
  }
});

// A fresh user's check: with a password `secret`, "secretive" became "[redacted:PASSWORD]ive".
const SHORT = { DB_PASSWORD: "secret" };
const redactedAsValue = [
  ["secret", "[redacted:DB_PASSWORD]"],
  ["KEY=secret", "KEY=[redacted:DB_PASSWORD]"],
  ["postgres://user:secret@db/x", "postgres://user:[redacted:DB_PASSWORD]@db/x"],
  ['{"password":"secret"}', '{"password":"[redacted:DB_PASSWORD]"}'],
  ["it is 'secret'.", "it is '[redacted:DB_PASSWORD]'."],
  ["first line\nsecret\n", "first line\n[redacted:DB_PASSWORD]\n"],
  ["-secret-", "-[redacted:DB_PASSWORD]-"],
  ["secretété", "[redacted:DB_PASSWORD]été"],
] as const;
const partOfAWord = ["secretive", "secrets", "my_secret", "secret1", "topsecret", "SECRET"];

test("a short secret is replaced where it stands as a value, not inside another word", () => {
  const redact = secretRedactor(SHORT);
  for (const [text, expected] of redactedAsValue) {
    expect(redact(text)).toBe(expected);
  }
  for (const word of partOfAWord) {
    expect(redact(`the ${word} here`)).toBe(`the ${word} here`);
  }
  // An event's strings are each bounded by their own ends, newlines inside included.
  const event = eventRedactor(SHORT)({
    type: "user.message",
    data: { source: "user", content: "line\nsecret", attachments: ["secretive", "secret"] },
  });
  expect(event.data).toEqual({
    source: "user",
    content: "line\n[redacted:DB_PASSWORD]",
    attachments: ["secretive", "[redacted:DB_PASSWORD]"],
  });
});

test("a secret of 16 characters or more is replaced wherever it appears, glued to words too", () => {
  const redact = secretRedactor({ API_KEY: "sk0123456789abcdef", DB_PASSWORD: "secret" });
  expect(redact("xsk0123456789abcdefy secretive")).toBe("x[redacted:API_KEY]y secretive");
});

test("a short secret that begins or ends with punctuation is bounded only where it has a letter", () => {
  const redact = secretRedactor({ DB_PASSWORD: "-pass1!" });
  expect(redact("x-pass1!y")).toBe("x[redacted:DB_PASSWORD]y");
  expect(redact("x-pass1!")).toBe("x[redacted:DB_PASSWORD]");
  expect(redact("-pass12!")).toBe("-pass12!");
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

test("with no secrets in the environment the text is unchanged", () => {
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

test("a stream redacts a short secret as a text does, however the chunks cut it", () => {
  const text = [...redactedAsValue.map(([value]) => value), ...partOfAWord, "secret"].join(" ");
  const expected = secretRedactor(SHORT)(text);
  expect(expected).toContain("KEY=[redacted:DB_PASSWORD]");
  expect(expected).toContain(" secretive ");
  const input = Buffer.from(text, "utf8");
  for (const size of [1, 2, 5, 6, 7, 13]) {
    const redactor = new SecretStreamRedactor(secretValues(SHORT));
    const pieces: Buffer[] = [];
    for (let start = 0; start < input.length; start += size) {
      pieces.push(redactor.push(input.subarray(start, start + size)));
    }
    pieces.push(redactor.end());
    expect(Buffer.concat(pieces).toString("utf8")).toBe(expected);
  }
});

test("with no secrets the stream passes through untouched", () => {
  const redactor = new SecretStreamRedactor(secretValues({ HOME: "/root" }));
  const chunk = Buffer.from("plain");
  expect(redactor.push(chunk)).toBe(chunk);
  expect(redactor.end().length).toBe(0);
});
