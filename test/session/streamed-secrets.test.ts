import { expect, test } from "vitest";
import { secretValues, textRedactor } from "../../src/events/secrets.js";
import { TextStreamRedactor } from "../../src/session/secrets.js";

const KEY = "sk-live-0123456789abcdefghij";
const environment = { OPENAI_API_KEY: KEY, DB_PASSWORD: "secret", HOME: "/root" };
const secrets = secretValues(environment);

/** The pieces a stream redactor returns for `pieces`, its end included when not empty. */
function streamed(pieces: readonly string[]): string[] {
  const redactor = new TextStreamRedactor(secrets);
  const shown = pieces.map((piece) => redactor.push(piece));
  const end = redactor.end();
  return end === "" ? shown : [...shown, end];
}

test("a key cut anywhere between two pieces is shown whole, redacted, with the second", () => {
  for (let cut = 1; cut < KEY.length; cut++) {
    expect(streamed([`a ${KEY.slice(0, cut)}`, `${KEY.slice(cut)} b`])).toEqual([
      "a ",
      "[redacted:OPENAI_API_KEY] b",
    ]);
  }
});

test("text that cannot begin a secret is shown at once, and a held end that is no secret with the next piece", () => {
  expect(streamed(["plain text, ", "no key here.\n"])).toEqual(["plain text, ", "no key here.\n"]);
  expect(streamed(["key sk-", "lorem ipsum"])).toEqual(["key ", "sk-lorem ipsum"]);
  expect(streamed(["the end: sk-li"])).toEqual(["the end: ", "sk-li"]);
  // A short secret is held whole until the next character says whether it stands as a value.
  expect(streamed(["it is secret", "ive", " and secret", "."])).toEqual([
    "it is ",
    "secretive",
    " and ",
    "[redacted:DB_PASSWORD].",
  ]);
  // Glued to a word, a short secret's start is no value: not held.
  expect(streamed(["topsecr", "et"])).toEqual(["topsecr", "et"]);
});

test("however pieces cut a text, joined they are the whole text redacted", () => {
  const text = `a ${KEY} b secret, secretive ${KEY}${KEY}x "secret" sk-li my_secret secret`;
  const whole = textRedactor(secrets)(text);
  expect(whole).toBe(
    "a [redacted:OPENAI_API_KEY] b [redacted:DB_PASSWORD], secretive " +
      '[redacted:OPENAI_API_KEY][redacted:OPENAI_API_KEY]x "[redacted:DB_PASSWORD]" sk-li ' +
      "my_secret [redacted:DB_PASSWORD]",
  );
  for (let first = 1; first < text.length; first++) {
    for (const size of [1, 2, 7]) {
      const pieces = [text.slice(0, first)];
      for (let start = first; start < text.length; start += size) {
        pieces.push(text.slice(start, start + size));
      }
      expect(streamed(pieces).join("")).toBe(whole);
    }
  }
});

test("with no secrets every piece is shown as it came", () => {
  const redactor = new TextStreamRedactor(secretValues({ HOME: "/root" }));
  expect(redactor.push("sk-live-")).toBe("sk-live-");
  expect(redactor.holding).toBe(false);
  expect(redactor.end()).toBe("");
});
