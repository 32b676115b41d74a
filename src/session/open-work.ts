/**
 * Turns and compactions a log leaves open (README, "Where sessions are kept"): a process killed
 * while the model replied, or while it summarised the conversation, wrote `assistant.turn_start`
 * or `session.compaction_start` and never their end. Reopening the session closes them as
 * interrupted, after the interrupted results of its open tool calls ({@link interruptedResults}),
 * so that every reader sees the prompt over and the model is told its reply was cut off; the
 * `session.resume` that opens them says once what was repaired ({@link resumeData}).
 */

import type {
  EventInput,
  RepairNote,
  SessionEvent,
  SessionEventData,
  ToolRequest,
} from "../events/events.js";
import { INTERRUPTED, PROMPT_INTERRUPTED } from "./interrupted-work.js";
import { PromptStops, type StoppablePrompt } from "./session-model/prompt-stops.js";
import type { StoredLog } from "./session-store.js";

export { INTERRUPTED, isPromptInterrupted, PROMPT_INTERRUPTED } from "./interrupted-work.js";

/** The turns and the compaction of a log not ended yet, folded an event at a time. */
export class OpenWork {
  /** Open turns by `turnId`, in the order they started. */
  readonly #turns = new Map<string, SessionEventData["assistant.turn_start"]>();
  #compaction: SessionEventData["session.compaction_start"] | undefined;
  /** Calls handled (`tool.execution_start`) and not refused or waiting at a question: they may have run. */
  readonly #mayHaveRun = new Set<string>();
  /**
   * Calls held at a permission question, by how it stands: unanswered (`asked`), or answered no
   * or cancelled before the call's result was written.
   */
  readonly #held = new Map<string, "asked" | "denied" | "cancelled">();
  /** The prompt being answered, and whether the log ends it: the session model's rule. */
  readonly #prompt = new PromptStops<StoppablePrompt>();

  /** Folds one event of the log. */
  apply(event: SessionEvent): void {
    this.#prompt.apply(event, (given) => ({
      source: given.type === "user.message" ? given.data.source : "user",
    }));
    switch (event.type) {
      case "tool.execution_start":
        this.#mayHaveRun.add(event.data.toolCallId);
        return;
      case "permission.requested":
        this.#held.set(event.data.toolCallId, "asked");
        return;
      case "permission.completed":
        if (event.data.decision === "allowed") {
          this.#held.delete(event.data.toolCallId);
        } else {
          this.#held.set(event.data.toolCallId, event.data.decision);
        }
        return;
      case "tool.execution_complete":
        this.#mayHaveRun.delete(event.data.toolCallId);
        this.#held.delete(event.data.toolCallId);
        return;
      case "assistant.turn_start":
        this.#turns.set(event.data.turnId, event.data);
        return;
      case "assistant.turn_end":
        this.#turns.delete(event.data.turnId);
        return;
      case "session.compaction_start":
        this.#compaction = event.data;
        return;
      case "session.compaction_complete":
        this.#compaction = undefined;
        return;
      case "session.snapshot_rewind":
        // What a rewind or a truncate leaves without its end was cut on purpose: no process
        // left it open.
        this.clear();
        return;
      default:
        return;
    }
  }

  /** Forgets everything folded (a rewound conversation is folded again). */
  clear(): void {
    this.#prompt.clear();
    this.#turns.clear();
    this.#compaction = undefined;
    this.#mayHaveRun.clear();
    this.#held.clear();
  }

  /** Whether the call `toolCallId` left without a result may have partly run. */
  mayHaveRun(toolCallId: string): boolean {
    return this.#mayHaveRun.has(toolCallId) && !this.#held.has(toolCallId);
  }

  /** What {@link closingEvents} closes, with `toolCalls` calls left without a result. */
  closed(toolCalls: number): ClosedWork {
    const turns = this.#turns.size;
    const compactions = this.#compaction ? 1 : 0;
    return { toolCalls, turns, compactions, prompts: this.#promptLeftOpen() ? 1 : 0 };
  }

  /**
   * Whether the prompt being answered has no end in the log and no turn that {@link closingEvents}
   * closes ends it: its process was killed between two turns (session-model/prompt-stops.ts
   * `PromptStops.open`, what every view shows without a stop). A turn or a
   * compaction left open is closed as interrupted, which ends it (prompt-end.ts).
   */
  #promptLeftOpen(): boolean {
    return this.#prompt.open && this.#turns.size === 0 && this.#compaction === undefined;
  }

  /**
   * The events that close what is open, in the order the loop would have written them: an
   * interrupted result for each call of `pendingCalls` ("Not run" for one that never started: not
   * handled yet, or held at a permission question: {@link interruptedResults}), then an `assistant.turn_end` with status
   * `interrupted` for each open turn, then a failed `session.compaction_complete`; when no turn
   * was open and the prompt being answered has no end, a `session.error`
   * {@link PROMPT_INTERRUPTED} ends it.
   */
  closingEvents(pendingCalls: readonly ToolRequest[]): EventInput[] {
    const turnEnds: EventInput[] = [...this.#turns.keys()].map((turnId) => ({
      type: "assistant.turn_end",
      data: { turnId, status: "interrupted" },
    }));
    const compaction = this.#compaction;
    const compactionEnd: EventInput[] =
      compaction === undefined
        ? []
        : [
            {
              type: "session.compaction_complete",
              data: {
                success: false,
                trigger: compaction.trigger,
                preCompactionTokens: compaction.currentTokens,
                error: INTERRUPTED,
              },
            },
          ];
    const results = interruptedResults(pendingCalls, (call) =>
      this.mayHaveRun(call.toolCallId)
        ? "may-have-run"
        : (this.#held.get(call.toolCallId) ?? "not-started"),
    );
    const promptEnd: EventInput[] = this.#promptLeftOpen()
      ? [{ type: "session.error", data: { ...PROMPT_INTERRUPTED } }]
      : [];
    return [...results, ...turnEnds, ...compactionEnd, ...promptEnd];
  }
}

/*
 * The results a session records for tool calls left without one (a crash, a kill, a failed
 * write): each an interrupted failure (DESIGN.md: every tool call gets exactly one result).
 */

/** Where a call left without a result stood when its process ended (see {@link LEFT_RESULTS}). */
export type LeftCall = "may-have-run" | "asked" | "denied" | "cancelled" | "not-started";

/**
 * What the model reads for a call its process left without a result: what happened, not a cancel
 * nobody made. A call started (or whose result line was lost) may have run, in part or in full; one
 * at its permission question (`asked`) never ran, as one a live cancel stops there says "Not run"
 * (case 04); one answered no or cancelled there never ran either.
 */
const LEFT_RESULTS: Record<LeftCall, string> = {
  "may-have-run":
    "Interrupted: turnloop stopped before the tool call's result was recorded; it may have run, in part or in full.",
  asked: "Not run: turnloop stopped before the permission question was answered.",
  denied: "Not run: permission was refused; turnloop stopped before the refusal was recorded.",
  cancelled: "Not run: the prompt was cancelled before the tool call started.",
  "not-started": "Not run: turnloop stopped before the tool call started.",
};

/**
 * One `tool.execution_complete` (interrupted) per call of `pending`, in order, saying what
 * happened to it by where `standing` says it stood ({@link LEFT_RESULTS}).
 */
export function interruptedResults(
  pending: readonly ToolRequest[],
  standing: (toolCall: ToolRequest) => LeftCall,
): EventInput[] {
  return pending.map((toolCall) => {
    const content = LEFT_RESULTS[standing(toolCall)];
    const error = { message: content, code: "interrupted" as const };
    const data = { toolCallId: toolCall.toolCallId, toolName: toolCall.name };
    return {
      type: "tool.execution_complete",
      data: { ...data, success: false, result: { content }, error },
    };
  });
}

/* The one line saying what opening a session's log repaired (README, "Where sessions are kept"). */

/**
 * `session.resume`'s data (without the app's `ResumeDetails`) for reopening `log`: the damage the
 * reader skipped, what `closed` counts, and the one line saying what is new ({@link repairNotice}).
 */
export function resumeData(log: StoredLog, closed: ClosedWork): SessionEventData["session.resume"] {
  const notice = repairNotice(log.events, log.repaired, closed);
  return {
    resumeTime: new Date().toISOString(),
    eventCount: log.eventCount ?? log.events.length,
    repaired: log.repaired,
    ...(closed.toolCalls === 0 ? {} : { interruptedToolCalls: closed.toolCalls }),
    ...(closed.turns === 0 ? {} : { interruptedTurns: closed.turns }),
    ...(closed.compactions === 0 ? {} : { interruptedCompactions: closed.compactions }),
    ...(closed.prompts === 0 ? {} : { interruptedPrompts: closed.prompts }),
    ...(notice === undefined ? {} : { notice }),
  };
}

/** What reopening a log closed that a process which ended left open (open-work.ts). */
export interface ClosedWork {
  toolCalls: number;
  turns: number;
  compactions: number;
  /** Prompts left without an end, no turn of theirs open (0 or 1): ended as interrupted. */
  prompts: number;
}

/**
 * One line saying what opening a log repaired that no earlier open reported (issue 11): a torn
 * last line cut, damaged lines skipped (they stay in the file and are skipped on every open, so
 * only those no earlier `session.resume` lists count), lines not of the log's chain skipped the
 * same way (event-log-reading.ts `LogChain`), tool calls left without a result given an interrupted one, turns and
 * compactions left open closed as interrupted. `undefined` when there is nothing new. Faces show it once: stderr for `-p`,
 * `_meta` for ACP, the `session.resume` event for SDK clients.
 */
export function repairNotice(
  events: readonly SessionEvent[],
  repaired: readonly RepairNote[],
  closed: ClosedWork,
): string | undefined {
  const reported = new Set(
    events.flatMap((event) =>
      event.type === "session.resume" ? event.data.repaired.map(noteKey) : [],
    ),
  );
  const fresh = repaired.filter((note) => !reported.has(noteKey(note)));
  const torn = fresh.filter((note) => note.reason === "torn_tail");
  const damaged = fresh.filter((note) => isDamage(note.reason));
  const foreign = fresh.filter((note) => note.reason !== "torn_tail" && !isDamage(note.reason));
  const parts: string[] = [];
  for (const note of torn) {
    parts.push(`cut a torn last line (line ${note.line}, ${note.length} bytes)`);
  }
  if (damaged.length > 0) {
    const lines = damaged.map((note) => note.line).join(", ");
    parts.push(`skipped ${count(damaged.length, "damaged line")} (${lines})`);
  }
  if (foreign.length > 0) {
    const lines = foreign.map((note) => `${note.line}: ${note.reason}`).join(", ");
    const what = foreign.length === 1 ? "line that is not" : "lines that are not";
    parts.push(`skipped ${foreign.length} ${what} of this session's chain (${lines})`);
  }
  if (closed.toolCalls > 0) {
    parts.push(
      `gave ${count(closed.toolCalls, "tool call")} left without a result an interrupted result`,
    );
  }
  if (closed.turns > 0 || closed.compactions > 0) {
    const open = [
      ...(closed.turns > 0 ? [count(closed.turns, "turn")] : []),
      ...(closed.compactions > 0 ? [count(closed.compactions, "compaction")] : []),
    ];
    parts.push(`closed ${open.join(" and ")} left open when its process ended, as interrupted`);
  }
  if (closed.prompts > 0) {
    const prompts = count(closed.prompts, "prompt");
    parts.push(`ended ${prompts} left without an end when its process ended, as interrupted`);
  }
  return parts.length === 0 ? undefined : `repaired the session log: ${parts.join("; ")}`;
}

/** Whether `reason` is a line that did not decode (not one of another chain, nor a torn tail). */
function isDamage(reason: RepairNote["reason"]): boolean {
  return reason === "invalid_json" || reason === "invalid_event";
}

function noteKey(note: RepairNote): string {
  return `${note.offset}:${note.length}:${note.reason}`;
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? "" : "s"}`;
}
