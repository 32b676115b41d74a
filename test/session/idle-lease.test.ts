/**
 * A writer lease let go while idle (src/session/idle-lease.ts, issue 25), with two real processes
 * on one file store: each holds the session in turn and appends; no two ever append at once, and
 * each one's events chain after the other's.
 */

import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "../../src/session/file-store.js";
import { openWhenReleased } from "../../src/session/idle-lease-appender.js";
import { SessionLockedError } from "../../src/session/session-store.js";
import { runScript } from "./other-process.js";
import { buildEvents, makeTemporaryDirectory, sessionStart } from "./support.js";

const dist = (path: string) =>
  fileURLToPath(new URL(`../../dist/session/${path}`, import.meta.url));

/**
 * A process that opens the session with an idle lease and, `rounds` times, holds it, appends
 * three events (committing after each, so that another writer could slip in if it were not
 * exclusive), lets it go and waits until it is let go.
 */
const TAKING_TURNS = `
const argv = process.argv.slice(1);
const { openAppender } = await import(argv[0]);
const { FileSessionStore } = await import(argv[1]);
const { randomUUID } = await import("node:crypto");
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { sessionId, name, rounds } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const { appender } = await openAppender(new FileSessionStore(argv[2]), sessionId, true);
const released = async () => {
  while (appender.held) await new Promise((resolve) => setImmediate(resolve));
};
await appender.commit();
await released();
for (let round = 0; round < rounds; round++) {
  const letGo = await appender.hold();
  for (let index = 0; index < 3; index++) {
    appender.append({
      type: "user.message",
      data: { content: name + " " + round + " " + index, source: "user" },
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      parentId: appender.lastEventId,
    });
    await appender.commit();
  }
  letGo();
  await released();
}
await appender.close();
`;

describe("an idle lease across two processes", () => {
  let home: string | undefined;
  afterEach(async () => {
    if (home !== undefined) {
      await rm(home, { recursive: true, force: true });
    }
  });

  async function storedSession(): Promise<FileSessionStore> {
    home = await makeTemporaryDirectory();
    const store = new FileSessionStore(home);
    const appender = await store.create("shared");
    for (const event of buildEvents([sessionStart("shared")])) {
      appender.append(event);
    }
    await appender.close();
    return store;
  }

  it("lets two processes append in turns, never at once, each chained after the other", async () => {
    const store = await storedSession();
    const rounds = 8;
    const args = [dist("idle-lease.js"), dist("file-store.js"), store.location];
    await Promise.all(
      ["first", "second"].map((name) =>
        runScript(TAKING_TURNS, args, { sessionId: "shared", name, rounds }),
      ),
    );

    const { events, repaired } = await store.read("shared");
    expect(repaired).toEqual([]);
    // Every event points at the one before it in the file.
    expect(events.map((event) => event.parentId)).toEqual([
      null,
      ...events.slice(0, -1).map((event) => event.id),
    ]);
    const contents = events
      .slice(1)
      .map((event) => (event.type === "user.message" ? event.data.content : event.type));
    // Each hold's three events are together; each process's holds in order.
    const blocks = Array.from({ length: contents.length / 3 }, (_, block) =>
      contents.slice(block * 3, block * 3 + 3),
    );
    const heldBy = blocks.map((block) => {
      const [name, round] = (block[0] ?? "").split(" ");
      expect(block).toEqual([0, 1, 2].map((index) => `${name} ${round} ${index}`));
      return `${name} ${round}`;
    });
    for (const name of ["first", "second"]) {
      expect(heldBy.filter((held) => held.startsWith(name))).toEqual(
        Array.from({ length: rounds }, (_, round) => `${name} ${round}`),
      );
    }
  });

  it("refuses at once when the holder keeps its lease while idle (the terminal, -p, ACP)", async () => {
    const store = await storedSession();
    const { appender } = await store.open("shared");
    try {
      await expect(openWhenReleased(store, "shared")).rejects.toBeInstanceOf(SessionLockedError);
    } finally {
      await appender.close();
    }
  });
});
