import { describe, expect, test } from "vitest";
import { age } from "../../src/session/age.js";

// The ages `turnloop sessions`, `/sessions` and the resume picker show (issue 24 item 7).

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const earlier = (ms: number) => new Date(NOW - ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("age", () => {
  test.each([
    [earlier(0), "just now"],
    [earlier(59_999), "just now"],
    [earlier(MINUTE), "1 min ago"],
    [earlier(3 * MINUTE + 20_000), "3 min ago"],
    [earlier(59 * MINUTE), "59 min ago"],
    [earlier(2 * HOUR + 5 * MINUTE), "2 h ago"],
    [earlier(23 * HOUR), "23 h ago"],
    [earlier(DAY), "yesterday"],
    [earlier(2 * DAY - 1), "yesterday"],
    [earlier(2 * DAY), "2 days ago"],
    [earlier(29 * DAY), "29 days ago"],
    [earlier(31 * DAY), "2026-10-31"],
    [new Date(NOW + HOUR).toISOString(), "just now"],
    ["not a time", "?"],
  ])("%s is %s", (timestamp, expected) => {
    expect(age(timestamp, NOW)).toBe(expected);
  });
});
