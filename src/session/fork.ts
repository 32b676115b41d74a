/**
 * Forking a session (an SDK app's `sessions.fork`): a new session whose log is a copy of the
 * source's conversation (rewound events left out, rewind.ts) up to an event, so that both go on
 * from there independently. The source is only read.
 */

import type { SessionEvent } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { newSessionId } from "./paths.js";
import { conversationEvents, RewindTargetError, rewindCut } from "./rewind.js";
import type { SessionStore } from "./session-store.js";

/**
 * Writes the fork of `source` (a session's stored events) into `store` and returns its id. The
 * fork starts with a `session.start` of its own (new id and start time, the source's cwd and
 * model, `forkedFrom` the source's id), then the source's events before `toEventId` (exclusive; all when absent) with their
 * ids, chained anew; `title`, when given, is recorded as `session.title_changed`. A tool call the
 * cut leaves without a result gets an interrupted one when the fork is resumed.
 * @throws RewindTargetError when `toEventId` is not in the source's conversation or is its
 * `session.start`, or when the source has no `session.start`; the store's errors.
 */
export async function forkSession(
  store: SessionStore,
  source: readonly SessionEvent[],
  options: { toEventId?: string | undefined; title?: string | undefined } = {},
): Promise<string> {
  const conversation = conversationEvents(source);
  const start = conversation[0];
  if (start?.type !== "session.start") {
    throw new RewindTargetError("the source session has no session.start to fork from");
  }
  const end =
    options.toEventId === undefined
      ? conversation.length
      : rewindCut(conversation, options.toEventId).index;
  const sessionId = newSessionId();
  const startTime = new Date().toISOString();
  const copied: SessionEvent[] = [
    {
      ...start,
      data: { ...start.data, sessionId, startTime, forkedFrom: start.data.sessionId },
      id: randomUUID(),
      timestamp: startTime,
    },
  ];
  for (const event of conversation.slice(1, end)) {
    if (event.type !== "session.snapshot_rewind") {
      copied.push(event);
    }
  }
  if (options.title !== undefined) {
    const title: SessionEvent = {
      type: "session.title_changed",
      data: { title: options.title },
      id: randomUUID(),
      timestamp: startTime,
      parentId: null,
    };
    copied.push(title);
  }
  const appender = await store.create(sessionId);
  try {
    let parentId: string | null = null;
    for (const event of copied) {
      appender.append({ ...event, parentId });
      parentId = event.id;
    }
  } finally {
    await appender.close();
  }
  return sessionId;
}
