import { describe, expect, test } from "vitest";
import { age } from "../../src/session/age.js";

// The ages `turnloop sessions`, `/sessions` and the resume picker show (issue 24 item 7).

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const before = (ms: number) => new Date(NOW - ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("age", () => {
  test.each([
    [before(0), "just now"],
    [before(59_999), "just now"],
    [before(MINUTE), "1 min ago"],
    [before(3 * MINUTE + 20_000), "3 min ago"],
    [before(59 * MINUTE), "59 min ago"],
    [before(2 * HOUR + 5 * MINUTE), "2 h ago"],
    [before(23 * HOUR), "23 h ago"],
    [before(DAY), "yesterday"],
    [before(2 * DAY - 1), "yesterday"],
    [before(2 * DAY), "2 days ago"],
    [before(29 * DAY), "29 days ago"],
    [before(31 * DAY), "2026-10-31"],
    [new Date(NOW + HOUR).toISOString(), "just now"],
    ["not a time", "?"],
  ])("%s is %s", (timestamp, expected) => {
    expect(age(timestamp, NOW)).toBe(expected);
  });
});
