import { expect, test } from "vitest";
import { OpeningGate } from "../../src/session/opening-gate.js";
import { gate } from "../support/gate.js";

// A request about a session that waited for its open (a prompt sent with an ACP `session/load`)
// must start before an open of the session that came after it (a second load): that open closes
// the session to reopen it, and refuses while a prompt runs (acp/session-requests.ts). The second
// open's callback ran a tick before the waiting request's, so the prompt started in the session
// that open was closing, which cancelled it.

test("a request that waited for an open starts before the next open of the session", async () => {
  const openings = new OpeningGate();
  const first = gate();
  const order: string[] = [];
  const load = openings.open("s", async () => {
    await first.opened;
    order.push("first open");
  });
  const prompt = openings.settled("s")?.then(() => order.push("waiting request"));
  const again = openings.open("s", async () => {
    order.push("second open");
  });
  first.open();
  await Promise.all([load, prompt, again]);
  expect(order).toEqual(["first open", "waiting request", "second open"]);
});

test("a failed open fails the requests that waited for it; the next open runs all the same", async () => {
  const openings = new OpeningGate();
  const failed = openings.open("s", async () => {
    throw new Error("no such session");
  });
  const waiting = openings.settled("s");
  const again = openings.open("s", async () => "opened");
  await expect(failed).rejects.toThrow("no such session");
  await expect(waiting).rejects.toThrow("no such session");
  expect(await again).toBe("opened");
  expect(openings.settled("s")).toBeUndefined();
});
