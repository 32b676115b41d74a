import type * as acp from "@agentclientprotocol/sdk";

type ChunkKind = "agent_message_chunk" | "agent_thought_chunk";

/** A text chunk of the agent's reply or thoughts waiting to be sent. */
interface PendingChunk {
  kind: ChunkKind;
  messageId: string;
  text: string;
}

/**
 * The `session/update`s of one ACP session on their way to the client, in order.
 *
 * Adjacent text chunks of one message (`agent_message_chunk` or `agent_thought_chunk` with the
 * same `messageId`, nothing else in between) made in the same turn of the event loop leave as one
 * chunk carrying their texts joined. ACP v1 (prompt-turn: "agent_message_chunk", content) streams
 * a message as chunks of any size that the client appends in order, so the client shows the same
 * text; only the number of notifications changes. With one notification per model token, each
 * notification's own cost (serialising, the SDK's write queue, the write) was the larger part of
 * the relay; a model that streams faster than the event loop turns now costs one notification
 * per network read. A chunk waits at most until the next turn of the event loop
 * (`setImmediate`), until any other update is sent, which then goes after it, or until
 * {@link sendWaiting} (its message is whole: nothing can join it).
 */
export class UpdateOutbox {
  private pending: PendingChunk | undefined;
  private scheduled = false;
  /** The last notification sent; the SDK writes in call order, so awaiting it flushes them all. */
  private lastSent: Promise<void> = Promise.resolve();

  /** @param notify sends one `session/update` (its promise rejects when the connection closed). */
  constructor(private readonly notify: (update: acp.SessionUpdate) => Promise<void>) {}

  /** Sends `update` after every update sent before it (a text chunk may wait: see above). */
  send(update: acp.SessionUpdate): void {
    const chunk = textChunk(update);
    if (chunk === undefined) {
      this.release();
      this.post(update);
      return;
    }
    const pending = this.pending;
    if (
      pending !== undefined &&
      pending.kind === chunk.kind &&
      pending.messageId === chunk.messageId
    ) {
      pending.text += chunk.text;
      return;
    }
    this.release();
    this.pending = chunk;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.release();
      });
    }
  }

  /** Sends a waiting chunk now; resolves once every update sent so far is written. */
  flush(): Promise<void> {
    this.release();
    return this.lastSent;
  }

  /**
   * Sends a waiting chunk now (ACP session: when its message is whole, so that the last chunk
   * does not wait behind the turn's end).
   */
  sendWaiting(): void {
    this.release();
  }

  private release(): void {
    const pending = this.pending;
    if (pending === undefined) {
      return;
    }
    this.pending = undefined;
    this.post({
      sessionUpdate: pending.kind,
      content: { type: "text", text: pending.text },
      messageId: pending.messageId,
    });
  }

  private post(update: acp.SessionUpdate): void {
    for (const piece of boundedUpdates(update)) {
      // A closed connection rejects every send; there is nobody left to tell.
      this.lastSent = this.notify(piece).catch(() => undefined);
    }
  }
}

/**
 * The most UTF-16 code units of text one message chunk update carries: 1 Mi, so at most 3 MiB of
 * UTF-8 and 6 MiB written as JSON escapes. The ACP SDK's line reader refuses a message over its
 * limit (32 MiB by default: @agentclientprotocol/sdk core/stream-limits.js) and the client's
 * connection ends, so a replayed 50 MB prompt, or a long reply joined here, must not go as one.
 */
export const MAX_CHUNK_TEXT = 1024 * 1024;

/**
 * `update` as the updates that carry it within {@link MAX_CHUNK_TEXT}: a `user_message_chunk`,
 * `agent_message_chunk` or `agent_thought_chunk` of a longer text goes as several chunks of the
 * same message, in order, never splitting a surrogate pair: ACP v1 (prompt-turn, session/load)
 * streams a message as chunks the client appends in order, those with the same `messageId`
 * forming one message. Any other update is returned as it is.
 */
export function boundedUpdates(update: acp.SessionUpdate): acp.SessionUpdate[] {
  if (
    (update.sessionUpdate !== "user_message_chunk" &&
      update.sessionUpdate !== "agent_message_chunk" &&
      update.sessionUpdate !== "agent_thought_chunk") ||
    update.content.type !== "text" ||
    update.content.text.length <= MAX_CHUNK_TEXT
  ) {
    return [update];
  }
  const { content } = update;
  const pieces: acp.SessionUpdate[] = [];
  for (let start = 0; start < content.text.length; ) {
    let end = Math.min(start + MAX_CHUNK_TEXT, content.text.length);
    const last = content.text.charCodeAt(end - 1);
    if (end < content.text.length && last >= 0xd800 && last <= 0xdbff) {
      end -= 1;
    }
    pieces.push({ ...update, content: { ...content, text: content.text.slice(start, end) } });
    start = end;
  }
  return pieces;
}

/**
 * The parts of a plain text chunk of the agent's (`sessionUpdate`, `content` of type text and
 * `messageId`, nothing else); `undefined` for any other update, which is sent as it is.
 */
function textChunk(update: acp.SessionUpdate): PendingChunk | undefined {
  if (
    (update.sessionUpdate !== "agent_message_chunk" &&
      update.sessionUpdate !== "agent_thought_chunk") ||
    update.content.type !== "text" ||
    typeof update.messageId !== "string" ||
    Object.keys(update).length !== 3 ||
    Object.keys(update.content).length !== 2
  ) {
    return undefined;
  }
  return { kind: update.sessionUpdate, messageId: update.messageId, text: update.content.text };
}
