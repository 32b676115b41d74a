/**
 * An event appended while an idle lease is let go, which the file store refuses when the lease is
 * taken back (a full disk: src/session/idle-lease.ts): it waits for the next commit, which writes
 * it once there is room, as a PostgreSQL batch waits; it is never dropped from memory while the
 * session's clients were told it (src/session/held-delivery.ts tells it: the failure is no lost
 * lease).
 */

import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { FileSessionStore } from "../../src/session/file-store.js";
import { openAppender } from "../../src/session/idle-lease.js";
import { IdleLeaseAppender } from "../../src/session/idle-lease-appender.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import { buildEvents, sessionStart, userMessage } from "./support.js";

describe.skipIf(!CAN_MOUNT)(needingMount("an idle lease on a full disk"), () => {
  const disk = useFullDisk(1024, false);

  it("keeps an event the disk refused when the lease was taken back, and writes it once there is room", async () => {
    const store = new FileSessionStore(disk.home);
    const created = await store.create("shared");
    const [start, big] = buildEvents([sessionStart("shared"), userMessage("x".repeat(64 * 1024))]);
    if (start === undefined || big === undefined) {
      throw new Error("buildEvents made fewer events than given");
    }
    created.append(start);
    await created.close();
    const { appender } = await openAppender(store, "shared", true);
    try {
      expect(appender).toBeInstanceOf(IdleLeaseAppender);
      if (!(appender instanceof IdleLeaseAppender)) {
        return;
      }
      await appender.commit();
      while (appender.held) {
        await nextTurn();
      }
      // Room for the lock the take writes, not for the 64 KiB line.
      await disk.leave(4);
      appender.append(big);
      await expect(appender.commit()).rejects.toThrow(/ENOSPC/);
      await disk.free();
      await appender.commit();
    } finally {
      // Its file closed whatever failed: the disk is unmounted after.
      await appender.close().catch(() => undefined);
    }

    const { events, repaired } = await store.read("shared");
    expect(repaired).toEqual([]);
    expect(events.map((event) => [event.id, event.parentId])).toEqual([
      [start.id, null],
      [big.id, start.id],
    ]);
  });

  it("closed while the disk is still full: says which events are lost, and lets the session go", async () => {
    const store = new FileSessionStore(disk.home);
    const created = await store.create("shared");
    const [start, big] = buildEvents([sessionStart("shared"), userMessage("x".repeat(64 * 1024))]);
    if (start === undefined || big === undefined) {
      throw new Error("buildEvents made fewer events than given");
    }
    created.append(start);
    await created.close();
    const { appender } = await openAppender(store, "shared", true);
    if (!(appender instanceof IdleLeaseAppender)) {
      throw new Error("openAppender(…, true) gave no IdleLeaseAppender");
    }
    await appender.commit();
    while (appender.held) {
      await nextTurn();
    }
    await disk.leave(4);
    appender.append(big);
    await expect(appender.commit()).rejects.toThrow(/ENOSPC/);
    // The close tries once more, then names what is lost, where it said the bare ENOSPC of the
    // write, or nothing once its caller went on, and kept the session's lock.
    await expect(appender.close()).rejects.toThrow(
      new RegExp(
        `^${disk.home}/session-state/shared/events\\.jsonl could not be written at exit \\(ENOSPC: no space left on device, write\\): 1 event held back since then is lost \\(user\\.message\\); a resume goes on after the last stored event$`,
      ),
    );
    await disk.free();
    const reopened = await store.open("shared");
    await reopened.appender.close();
    expect(reopened.log.events.map((event) => event.id)).toEqual([start.id]);
  });
});
