/**
 * The store's retry wait's test-only setting (session/postgres/database.ts): it only shortens
 * each wait and keeps their number (so as many tries), and any value that is not a whole number
 * of ms from 1 to 2,000 is ignored.
 */

import { describe, expect, test } from "vitest";
import {
  DEFAULT_RETRY_DELAYS_MS,
  retryDelaysMs,
  TEST_RETRY_DELAY_VARIABLE,
} from "../../src/session/postgres/database.js";

describe("retryDelaysMs", () => {
  test("unset, or not a whole number from 1 to 2,000: the defaults; else that wait for each", () => {
    const given = [undefined, "", "0", "-5", "2.5", "abc", "2001", "1", "5", "2000"];
    expect(
      given.map((value) =>
        retryDelaysMs(value === undefined ? {} : { [TEST_RETRY_DELAY_VARIABLE]: value }),
      ),
    ).toEqual([
      ...Array.from({ length: 7 }, () => DEFAULT_RETRY_DELAYS_MS),
      [1, 1, 1, 1, 1, 1],
      [5, 5, 5, 5, 5, 5],
      [2000, 2000, 2000, 2000, 2000, 2000],
    ]);
  });
});
