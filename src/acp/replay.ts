import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import { isProjectWarning } from "../session/project-warnings.js";
import type { UpdateMapper } from "./updates.js";

/**
 * The updates that replay a session for ACP v1 `session/load` (case 25): every user prompt
 * (`user_message_chunk`), every answer and thought (whole, with the live `messageId`s), every tool
 * call as `tool_call` followed by its final `tool_call_update` (calls cut off by a crash were
 * given an interrupted result when the session was reopened, so none replays as pending), every
 * plan, the title, and the latest usage once at the end. An untrusted project's warnings of
 * earlier openings are not replayed: this opening says its own (session/project-warnings.ts).
 * @param mapper a `replay` mapper, not titled (`UpdateMapper.replaying`), which then knows the
 * session's calls and title, to map the events that follow (a session followed from another
 * worker, remote-session.ts).
 * @param events the persisted events, in file order (after the reopening repairs).
 */
export function replayWith(
  mapper: UpdateMapper,
  events: readonly SessionEvent[],
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  let usage: acp.SessionUpdate | undefined;
  for (const event of events) {
    const mapped = mapper.map(event);
    for (const update of isProjectWarning(event) ? [] : mapped) {
      if (update.sessionUpdate === "usage_update") {
        usage = update;
      } else {
        updates.push(update);
      }
    }
  }
  if (usage !== undefined) {
    updates.push(usage);
  }
  return updates;
}

/**
 * Whether the log titles the session already: a prompt typed by the user, or a name given
 * (`session.title_changed`).
 */
export function hasTitle(events: readonly SessionEvent[]): boolean {
  return (
    events.some((event) => event.type === "user.message" && event.data.source === "user") ||
    events.some((event) => event.type === "session.title_changed")
  );
}
