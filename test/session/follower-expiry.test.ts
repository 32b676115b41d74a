/**
 * The follower expiry's test-only setting (session/follower-handler.ts): it can only shorten the
 * expiry an owner accepts, and any value that is not a whole number of ms in range is ignored.
 */

import { describe, expect, test } from "vitest";
import {
  FOLLOWER_EXPIRY_MS,
  followerExpiryMs,
  TEST_FOLLOWER_EXPIRY_VARIABLE,
} from "../../src/session/follower-handler.js";

describe("followerExpiryMs", () => {
  test("unset, or not a whole number from 1 to the default: the default; else the value", () => {
    const given = [undefined, "", "0", "-5", "2.5", "abc", "10001", "1", "3000", "10000"];
    expect(
      given.map((value) =>
        followerExpiryMs(value === undefined ? {} : { [TEST_FOLLOWER_EXPIRY_VARIABLE]: value }),
      ),
    ).toEqual([
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      FOLLOWER_EXPIRY_MS,
      1,
      3000,
      10_000,
    ]);
  });
});
