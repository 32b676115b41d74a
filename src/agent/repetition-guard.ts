import type { ToolCallOutcome } from "./tool-calls.js";

/**
 * Bounds a model that repeats itself (cases 13, 27). It counts consecutive tool calls with the
 * same name, arguments and result. At `warnAt` identical calls the result gets a warning the
 * model can read; at `stopAt` the prompt stops with `max_turn_requests`. Any change (another
 * call, another result) resets the count, so two reads separated by a write are not a loop.
 */
export class RepetitionGuard {
  private previousSignature: string | undefined;
  private repeats = 0;

  constructor(
    private readonly warnAt = 3,
    private readonly stopAt = 5,
  ) {}

  /** Records one call's outcome; returns it, with a warning appended when due. */
  readonly record = (outcome: ToolCallOutcome): ToolCallOutcome => {
    const signature = JSON.stringify([
      outcome.toolCall.name,
      outcome.toolCall.rawArguments ?? outcome.toolCall.arguments,
      outcome.content,
      outcome.isError,
    ]);
    this.repeats = signature === this.previousSignature ? this.repeats + 1 : 1;
    this.previousSignature = signature;
    if (this.repeats < this.warnAt) {
      return outcome;
    }
    const warning = `\n\n[turnloop: call ${this.repeats} in a row with these arguments and this result. Repeating it will not change the outcome: try something different, or stop and say what is blocking you.]`;
    return { ...outcome, content: outcome.content + warning };
  };

  /** Whether the model has repeated itself often enough to stop the prompt. */
  get shouldStop(): boolean {
    return this.repeats >= this.stopAt;
  }
}
