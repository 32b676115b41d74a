import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { bashTool } from "../../src/tools/index.js";
import { type Harness, startHarness } from "../support/harness.js";

const SECRET = "tok-live-SECRET-0123456789";
let harness: Harness;

beforeEach(async () => {
  process.env.TURNLOOP_TEST_SECRET_TOKEN = SECRET;
  harness = await startHarness({ tools: [bashTool] });
  // Commands do not get secret-looking variables (command-environment.ts); the value reaches
  // the command's output from a file instead, and is redacted as a secret of the environment.
  await writeFile(join(harness.cwd, "secret.txt"), SECRET);
});
afterEach(async () => {
  await harness.close();
  delete process.env.TURNLOOP_TEST_SECRET_TOKEN;
});

/** Events as a client compares them: ephemeral ones left out. */
function persistedOnly(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter((event) => event.ephemeral !== true);
}

test("secrets are redacted once, before folding: live == what a client saw == disk == resumed", async () => {
  harness.server.enqueue(
    {
      toolCalls: [
        {
          id: "call_1",
          name: "bash",
          arguments: JSON.stringify({ command: `echo "value=$(cat secret.txt)"` }),
        },
      ],
    },
    { text: `The value is ${SECRET}.` },
    { text: "ok" },
  );
  expect(await harness.prompt(`is ${SECRET} set?`)).toEqual({ stopReason: "end_turn" });
  const seen = JSON.stringify(harness.events);
  expect(seen).not.toContain(SECRET);
  expect(seen).toContain("value=[redacted:TURNLOOP_TEST_SECRET_TOKEN]");
  expect([...harness.session.openingEvents, ...persistedOnly(harness.events)]).toEqual(
    await harness.persisted(),
  );

  // The next request is built from the live history: the model sees the redacted text too.
  const live = structuredClone(harness.session.history.messages);
  expect(JSON.stringify(live)).not.toContain(SECRET);
  expect(JSON.stringify(live)).toContain("[redacted:TURNLOOP_TEST_SECRET_TOKEN]");
  const resumed = await harness.reopen();
  expect(resumed.history.messages).toEqual(live);
  await harness.prompt("again");
  expect(JSON.stringify(harness.server.requests.at(-1)?.body)).not.toContain(SECRET);
});
