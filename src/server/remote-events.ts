/**
 * What the client of a follower (remote-sessions.ts) is sent for each event another worker
 * stored, as the owner's own clients get it: the event in the SDK face's wire form (model names,
 * a `session.resume` with the model in force and the session's folder, as `session.getMessages`
 * sends it: wire-events.ts `historyOnWire`; a permission question with what Copilot SDK apps
 * read: remote-questions.ts), `assistant.idle` before an autopilot continuation, and with each
 * `assistant.usage` the ephemeral `session.usage_info` the owner derives, derived here alike,
 * both before the reply's `assistant.message` (usage-order.ts).
 */

import { History } from "../agent/history.js";
import type { SessionEvent, SessionEventData } from "../events/events.js";
import { createEnvelope } from "../session/envelope.js";
import type { RemoteQuestions } from "./remote-questions.js";
import { UsageBeforeReply } from "./usage-order.js";
import { copilotEventsBefore, modelNamesOnWire, usageInfo } from "./wire-events.js";

/** The wire events of one followed session, from its stored events in log order. */
export class FollowedEvents {
  /** The conversation as the owner folds it, for the `session.usage_info` it sends its clients. */
  readonly #history = new History();
  readonly #questions: RemoteQuestions;
  readonly #cwd: string;
  /** The model in force: the session's, or its last `session.model_change`'s. */
  #model: string;
  /** The context window of a model in tokens (host.ts), for `session.usage_info`. */
  readonly #contextWindowOf: (model: string) => number;
  /** A reply's `assistant.message` held until its usage was sent (Copilot's order). */
  readonly #usageOrder = new UsageBeforeReply<object>();

  constructor(
    start: SessionEventData["session.start"],
    questions: RemoteQuestions,
    contextWindowOf: (model: string) => number,
  ) {
    this.#questions = questions;
    this.#cwd = start.cwd;
    this.#model = start.model;
    this.#contextWindowOf = contextWindowOf;
  }

  /** Folds an event stored before the following began (its client was sent none of them). */
  past(event: SessionEvent): void {
    this.#questions.wireEvent(event, event);
    this.#fold(event);
  }

  /** @returns what the client is sent for the stored `event`, in order. */
  wire(event: SessionEvent): object[] {
    const current = { id: this.#model, reasoningEffort: undefined, cwd: this.#cwd };
    const form =
      event.type === "session.resume" ? modelNamesOnWire(event, current) : modelNamesOnWire(event);
    const wire = this.#questions.wireEvent(event, form);
    // An autopilot continuation: the owner's loop stopped and goes on (session.idle is never
    // stored); a reply's reasoning as Copilot's `assistant.reasoning` before it.
    const before = copilotEventsBefore(event);
    const sent = before.length === 0 ? [wire] : [...before, wire];
    this.#fold(event);
    if (event.type !== "assistant.usage") {
      return this.#usageOrder.order(event, sent);
    }
    // Ephemeral on the owner, so never stored: derived here as the owner derives it, and sent
    // before the usage and its reply, as the owner sends it (usage-order.ts).
    const tokenLimit = this.#contextWindowOf(event.data.model);
    const info = createEnvelope(usageInfo(this.#history, tokenLimit), event.id);
    return [info, ...this.#usageOrder.order(event, sent)];
  }

  #fold(event: SessionEvent): void {
    this.#history.apply(event);
    if (event.type === "session.model_change") {
      this.#model = event.data.newModel;
    }
  }
}
