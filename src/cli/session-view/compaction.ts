/** The session view's compaction marks and rows (fold.ts drives them through apply-event.ts). */

import { assignDefined, count, type Fields, text } from "./fields.js";
import type { Folder } from "./folder.js";
import type { ViewCompaction, ViewMark, ViewTurn } from "./view-model.js";

/** `session.compaction_start`: a compaction row and its "compaction started" mark. */
export function compactionStart(folder: Folder, at: number, data: Fields): void {
  const compaction: ViewCompaction = { at, afterTurn: folder.currentTurn?.index ?? 0 };
  assignDefined(compaction, {
    trigger: text(data.trigger),
    tokensBefore: count(data.currentTokens) ?? count(data.tokensBefore),
  });
  folder.compactions.push(compaction);
  const limit = count(data.tokenLimit);
  const tokens = compaction.tokensBefore ?? "?";
  const detail = limit === undefined ? `${tokens} tokens` : `${tokens} of ${limit} tokens`;
  folder.mark({ kind: "compaction", at, text: `compaction started (${detail})` });
}

/** `session.compaction_complete`: the row's outcome (a row of its own without a start) and its mark. */
export function compactionComplete(folder: Folder, at: number, data: Fields): void {
  let compaction = folder.compactions.at(-1);
  if (compaction === undefined || compaction.success !== undefined) {
    compaction = { at, afterTurn: folder.currentTurn?.index ?? 0 };
    folder.compactions.push(compaction);
  }
  compaction.afterTurn = folder.currentTurn?.index ?? 0;
  compaction.success = data.success !== false;
  const before = count(data.preCompactionTokens) ?? count(data.tokensBefore);
  assignDefined(compaction, {
    tokensBefore: compaction.tokensBefore ?? before,
    tokensAfter: count(data.postCompactionTokens) ?? count(data.tokensAfter),
    messagesRemoved: count(data.messagesRemoved),
    summary: text(data.summaryContent) ?? text(data.summary),
  });
  const outcome = compaction.success ? "compacted" : "compaction failed";
  const numbers = `${compaction.tokensBefore ?? "?"} → ${compaction.tokensAfter ?? "?"} tokens`;
  const mark: ViewMark = { kind: "compaction", at, text: `${outcome}: ${numbers}` };
  assignDefined(mark, { detail: compaction.summary });
  // Logged after its turn's end: filed with that turn (trial 41), not the next one or the prompt's
  // closing marks (a manual compaction, after the prompt's last turn).
  const turn = compactionTurn(folder, compaction.at);
  folder.mark(mark, turn?.turnId);
}

/**
 * The turn a compaction that started at `startAt` made its request in: the latest turn, when its
 * purpose is `compaction` and it began at or after the start. Undefined otherwise (a log without
 * the compaction's turn).
 */
function compactionTurn(folder: Folder, startAt: number): ViewTurn | undefined {
  const turn = folder.turns.at(-1);
  return turn?.purpose === "compaction" && turn.requestAt >= startAt ? turn : undefined;
}
