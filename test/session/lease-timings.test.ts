/**
 * The test-only settings of the lease's timings: the lease (session/postgres/lease.ts) sets the
 * lease length and a heartbeat a quarter of it (as 2.5 s of 10 s), any value that is not a whole
 * number of ms from 1,000 to 10,000 ignored; the follower's check of its owner's lease
 * (session/owner-watch.ts) sets the check period, any value not from 50 to 2,000 ignored.
 */

import { describe, expect, test } from "vitest";
import {
  OWNER_CHECK_MS,
  ownerCheckMs,
  TEST_OWNER_CHECK_VARIABLE,
} from "../../src/session/owner-watch.js";
import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LEASE_MS,
  leaseTimings,
  TEST_LEASE_VARIABLE,
} from "../../src/session/postgres/lease.js";

describe("leaseTimings", () => {
  test("unset, or not a whole number from 1,000 to 10,000: the defaults; else that lease, its heartbeat a quarter of it", () => {
    const given = [undefined, "", "0", "999", "2500.5", "abc", "10001", "1000", "4000", "10000"];
    const defaults = { leaseMs: DEFAULT_LEASE_MS, heartbeatMs: DEFAULT_HEARTBEAT_MS };
    expect(
      given.map((value) =>
        leaseTimings(value === undefined ? {} : { [TEST_LEASE_VARIABLE]: value }),
      ),
    ).toEqual([
      ...Array.from({ length: 7 }, () => defaults),
      { leaseMs: 1000, heartbeatMs: 250 },
      { leaseMs: 4000, heartbeatMs: 1000 },
      { leaseMs: 10_000, heartbeatMs: 2500 },
    ]);
  });
});

describe("ownerCheckMs", () => {
  test("unset, or not a whole number from 50 to 2,000: 2 s; else that period", () => {
    const given = [undefined, "", "0", "49", "250.5", "abc", "2001", "50", "250", "2000"];
    expect(
      given.map((value) =>
        ownerCheckMs(value === undefined ? {} : { [TEST_OWNER_CHECK_VARIABLE]: value }),
      ),
    ).toEqual([...Array.from({ length: 7 }, () => OWNER_CHECK_MS), 50, 250, 2000]);
  });
});
