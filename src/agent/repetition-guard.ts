import type { EventInput } from "../events/events.js";
import type { ToolCallOutcome } from "./tool-calls.js";

/**
 * Bounds a model that repeats itself across turns (cases 13, 27). It counts consecutive turns
 * making the same tool call (name, arguments and result) as the call before, and consecutive
 * turns whose batch of several calls is the same as the turn before's (in any order, results
 * included: a model asking again for forty results it was given, issue 27 item 1). At `warnAt`
 * repeats the result gets a warning the model can read; at `stopAt` the prompt stops with
 * `max_turn_requests`. Any change (another call, another result) resets the count, so two reads
 * separated by a write are not a loop. The same call made again within one reply counts once:
 * the model asked for them all before it saw any result, so it cannot have ignored one.
 */
export class RepetitionGuard {
  private previousSignature: string | undefined;
  private repeats = 0;
  /** Calls of the turn being run recorded so far. */
  private callsInTurn = 0;
  /**
   * The signature of the turn's first call while it is the only one and the previous turn was no
   * batch: a turn of one call is never compared as a batch, so it is digested only once a second
   * call makes the turn a batch (a SHA-256 per call: about 40,000 instructions,
   * bench/notes/turn20.md).
   */
  private firstSignature: string | undefined;
  /** Digests of the calls of the turn being run, once they are compared as a batch. */
  private batch: string[] = [];
  /** The previous turn's batch of several calls, its digests sorted and joined; else undefined. */
  private previousBatch: string | undefined;
  private previousBatchDigests = new Set<string>();
  private batchRepeats = 0;

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
    const digest = this.batchDigest(signature);
    if (signature !== this.previousSignature) {
      this.repeats = 1;
    } else if (this.callsInTurn === 1) {
      // The call before was the previous turn's last: the model saw its result and asked again.
      this.repeats += 1;
    }
    this.previousSignature = signature;
    // This turn repeats the batch so far: the turn this call is in would be the next repeat.
    const turns =
      digest !== undefined && this.previousBatchDigests.has(digest) ? this.batchRepeats + 1 : 0;
    if (this.repeats >= this.warnAt) {
      return withWarning(
        outcome,
        `turn ${this.repeats} in a row making this call, with the same result`,
      );
    }
    if (turns >= this.warnAt) {
      return withWarning(
        outcome,
        `turn ${turns} in a row making this same set of calls, with the same results`,
      );
    }
    return outcome;
  };

  /**
   * Adds the digest of the call of `signature` to the turn's batch and returns it, unless the call
   * is the turn's first and the previous turn was no batch (its digest then waits for a second
   * call: {@link firstSignature}).
   */
  private batchDigest(signature: string): string | undefined {
    this.callsInTurn += 1;
    if (this.callsInTurn === 1 && this.previousBatchDigests.size === 0) {
      this.firstSignature = signature;
      return undefined;
    }
    if (this.firstSignature !== undefined) {
      this.batch.push(digestOf(this.firstSignature));
      this.firstSignature = undefined;
    }
    const digest = digestOf(signature);
    this.batch.push(digest);
    return digest;
  }

  /** Ends a turn's batch: call after its results are recorded, before asking {@link shouldStop}. */
  endTurn(): void {
    const batch = this.batch.length > 1 ? [...this.batch].sort().join(",") : undefined;
    if (batch === undefined) {
      this.batchRepeats = 0;
    } else {
      this.batchRepeats = batch === this.previousBatch ? this.batchRepeats + 1 : 1;
    }
    this.previousBatch = batch;
    this.previousBatchDigests = new Set(batch === undefined ? [] : this.batch);
    this.batch = [];
    this.callsInTurn = 0;
    this.firstSignature = undefined;
  }

  /** Whether the model has repeated itself often enough to stop the prompt. */
  get shouldStop(): boolean {
    return this.repeats >= this.stopAt || this.batchRepeats >= this.stopAt;
  }

  /**
   * Why the prompt stopped once {@link shouldStop}, in words ("the model made the same tool call
   * with the same result 5 turns in a row"): its stop reason alone, `max_turn_requests`, reads as
   * `--max-turns`.
   */
  get stopCause(): string {
    const what =
      this.repeats >= this.stopAt
        ? `the same tool call with the same result ${this.repeats} turns in a row`
        : `the same set of tool calls with the same results ${this.batchRepeats} turns in a row`;
    return `the model made ${what}`;
  }

  /** The `session.warning` (`warningType: "repetition"`) that tells {@link stopCause}. */
  get stopNotice(): EventInput {
    const message = `stopped: ${this.stopCause}`;
    return { type: "session.warning", data: { warningType: "repetition", message } };
  }
}

function digestOf(signature: string): string {
  return process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(signature)
    .digest("base64");
}

function withWarning(outcome: ToolCallOutcome, what: string): ToolCallOutcome {
  const warning = `\n\n[turnloop: ${what}. Repeating it will not change the outcome: try something different, or stop and say what is blocking you.]`;
  return { ...outcome, content: outcome.content + warning };
}
