/**
 * What an editor shows of a session's updates as text: the model's answer, its thoughts and
 * turnloop's notices (ACP `agent_message_chunk`, `agent_thought_chunk`).
 */

import type * as acp from "@agentclientprotocol/sdk";

/** The texts of the `agent_message_chunk` updates among `updates`, in order. */
export function agentTexts(updates: readonly acp.SessionUpdate[]): string[] {
  return updates.flatMap((update) =>
    update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
      ? [update.content.text]
      : [],
  );
}

/** The text of every `agent_thought_chunk`: the model's reasoning and turnloop's notices. */
export function thoughtTexts(updates: readonly acp.SessionUpdate[]): string[] {
  return updates.flatMap((update) =>
    update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
      ? [update.content.text]
      : [],
  );
}

/**
 * What the editor shows of `updates`, in order: the text of each thought and message chunk, and
 * the kind (`sessionUpdate`) of each other update that `named` keeps (every one by default).
 */
export function chunkTextsAndKinds(
  updates: readonly acp.SessionUpdate[],
  named: (kind: acp.SessionUpdate["sessionUpdate"]) => boolean = () => true,
): string[] {
  return updates.flatMap((update) =>
    (update.sessionUpdate === "agent_thought_chunk" ||
      update.sessionUpdate === "agent_message_chunk") &&
    update.content.type === "text"
      ? [update.content.text]
      : named(update.sessionUpdate)
        ? [update.sessionUpdate]
        : [],
  );
}
