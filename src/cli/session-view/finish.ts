/**
 * The last steps of the fold: the stop reason of each prompt, turn times in the older log order,
 * the span of each turn, and the summary.
 */

import type { RepairNote } from "../../events/events.js";
import type { Folder } from "./fold.js";
import type { SessionView, ViewMark, ViewPrompt, ViewSummary, ViewTurn } from "./view-model.js";

/** ACP stop reasons for an AI SDK finish reason (DESIGN.md, "The loop"). */
const STOP_REASON_BY_FINISH: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  "content-filter": "refusal",
};

/**
 * The stop reason of a prompt, inferred from its events (`session.idle`, which carries it, is
 * never written): `cancelled` after an `abort`, `error` after a `session.error`, else the last
 * turn's finish reason. A last turn that asked for tools and was followed by no other ends with
 * `max_turn_requests` — except in the last prompt of an older log (turn_start at the first
 * token), where it may be waiting for the model: `unfinished`, as for an open turn.
 */
export function stopReasonOf(
  prompt: ViewPrompt,
  turns: readonly ViewTurn[],
  pendingMarks: readonly ViewMark[],
  isLast: boolean,
  olderOrder: boolean,
): string {
  const marks = [...prompt.marks, ...turns.flatMap((turn) => turn.marks), ...pendingMarks];
  if (marks.some((mark) => mark.kind === "abort")) {
    return "cancelled";
  }
  const last = turns.at(-1);
  const lastError = marks.filter((mark) => mark.kind === "error").at(-1);
  if (lastError !== undefined && (last === undefined || lastError.at >= last.requestAt)) {
    return "error";
  }
  if (last === undefined || last.status === "open") {
    return "unfinished";
  }
  if (last.status === "cancelled") {
    return "cancelled";
  }
  if (marks.some((mark) => mark.kind === "task_complete")) {
    return "end_turn";
  }
  const byFinish = STOP_REASON_BY_FINISH[last.finishReason ?? ""];
  if (byFinish !== undefined) {
    return byFinish;
  }
  if (last.tools.some((tool) => tool.status === "running")) {
    return "unfinished";
  }
  return isLast && olderOrder ? "unfinished" : "max_turn_requests";
}

/** Fixes up turn times once the whole log is read, and adds up the summary. */
export function finishView(folder: Folder, repaired: readonly RepairNote[]): SessionView {
  const olderOrder = folder.endedBeforeTools.size > 0;
  for (const turn of folder.turns) {
    if (olderOrder && turn.purpose === undefined) {
      // turn_start was written at the first token; the request left with the event before it.
      turn.firstTokenAt = turn.requestAt;
      turn.requestAt = Math.min(turn.requestAt, folder.previousAt.get(turn) ?? turn.requestAt);
    }
    turn.spanEnd = spanEnd(turn, folder.lastAt);
  }
  return {
    summary: summarize(folder, repaired),
    prompts: folder.prompts,
    turns: folder.turns,
    compactions: folder.compactions,
  };
}

/** The end of everything a turn holds; an open turn or tool lasts to the end of the log. */
function spanEnd(turn: ViewTurn, logEnd: number): number {
  const open = turn.status === "open" || turn.tools.some((tool) => tool.status === "running");
  const times = [turn.requestAt, turn.firstTokenAt, turn.lastTokenAt, turn.endAt];
  for (const tool of turn.tools) {
    times.push(tool.start, tool.end, tool.permission?.requested, tool.permission?.completed);
  }
  const known = times.filter((time): time is number => time !== undefined);
  return open ? logEnd : Math.max(...known);
}

function summarize(folder: Folder, repaired: readonly RepairNote[]): ViewSummary {
  const session = folder.session;
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const models = new Set<string>(typeof session.model === "string" ? [session.model] : []);
  const toolCalls: ViewSummary["toolCalls"] = {};
  let cost = 0;
  let costedTurns = 0;
  for (const turn of folder.turns) {
    if (turn.model !== undefined) {
      models.add(turn.model);
    }
    for (const key of Object.keys(tokens) as Array<keyof typeof tokens>) {
      tokens[key] += turn.usage?.[key] ?? 0;
    }
    if (turn.cost !== undefined) {
      cost += turn.cost;
      costedTurns += 1;
    }
    for (const tool of turn.tools) {
      const outcomes = toolCalls[tool.name] ?? {};
      toolCalls[tool.name] = outcomes;
      outcomes[tool.status] = (outcomes[tool.status] ?? 0) + 1;
    }
  }
  // Each session.resume may list damage that an earlier one (or this read) reports too.
  const seen = new Set(repaired.map((note) => `${note.offset}:${note.reason}`));
  const resumeRepairs = folder.resumeRepairs.filter((note) => {
    const key = `${note.offset}:${note.reason}`;
    const fresh = !seen.has(key);
    seen.add(key);
    return fresh;
  });
  const summary: ViewSummary = {
    models: [...models],
    prompts: folder.prompts.filter((prompt) => prompt.source !== "none").length,
    turns: folder.turns.length,
    toolCalls,
    tokens,
    costedTurns,
    wallMs: folder.lastAt,
    repaired: [
      ...resumeRepairs.map((note) => ({ ...note, when: "on resume" as const })),
      ...repaired.map((note) => ({ ...note, when: "now" as const })),
    ],
    running: folder.turns.some((turn) => turn.spanEnd === folder.lastAt && isOpen(turn)),
  };
  for (const key of ["sessionId", "cwd", "producerVersion", "startTime"] as const) {
    const value = session[key];
    if (typeof value === "string") {
      summary[key] = value;
    }
  }
  if (costedTurns > 0) {
    summary.cost = cost;
  }
  return summary;
}

function isOpen(turn: ViewTurn): boolean {
  return turn.status === "open" || turn.tools.some((tool) => tool.status === "running");
}
