/** What a new or reopened session (session.ts) starts from. */

import type { ResumeDetails, SessionEventOf } from "../events/events.js";
import { ConfigError } from "./config-paths.js";
import type { ConversationState } from "./resume-fold.js";
import { PRODUCER_VERSION } from "./version.js";

/**
 * How a session is opened: `environment`, the session host's, whose secrets are redacted from
 * every event (default: this process's); `releaseWhenIdle`, the writer lease is held only while
 * the session writes (idle-lease.ts; the SDK server over the file store).
 */
export interface OpeningOptions {
  environment?: NodeJS.ProcessEnv;
  /** Variables of `environment` whose values are secrets whatever their names (config profiles'
   * `apiKeyEnv`: events/secrets.ts `secretValues`). */
  secretVariables?: readonly string[];
  releaseWhenIdle?: boolean;
  /** Recorded in the `session.resume` event of a reopen. */
  resumeDetails?: ResumeDetails;
  /**
   * A reopen's check of the session's start (its folder) and its folded conversation (the model
   * it runs with, its history), once its lease is held and before anything is written: a
   * rejection refuses the reopen, the lease let go and the log unchanged.
   */
  beforeResume?: (
    start: SessionEventOf<"session.start">["data"],
    conversation: ConversationState,
  ) => Promise<void>;
}

/** What host.ts `open`'s `refuse` reads of a session before it is reopened. */
export interface Reopening {
  start: { cwd: string; model: string };
  /** The folded conversation: its history, and `changedModel` (else the start's is in use). */
  state: ConversationState;
  /** The context window (tokens) of a model in the session's folder (compaction.ts `windowOf`). */
  contextWindow(modelId: string): number;
}

/** A reopen host.ts `open`'s `refuse` refused, with its reason. */
export class ReopenRefusedError extends ConfigError {
  override readonly name = "ReopenRefusedError";
}

/**
 * How a new session is created (session.ts `Session.create`): `sessionId`, chosen by the app
 * (default a new UUID); `saveAtFirstPrompt`, nothing stored and no lease until the first
 * `user.message`, and `morePrompts`, the interactive face's way of it (deferred-appender.ts).
 */
export interface CreationOptions extends OpeningOptions {
  sessionId?: string;
  saveAtFirstPrompt?: boolean;
  morePrompts?: boolean;
}

/** The `session.start` data of a new session `sessionId` in `cwd` with `model`, started now. */
export function startData(
  sessionId: string,
  cwd: string,
  model: string,
): SessionEventOf<"session.start">["data"] {
  return {
    sessionId,
    version: 1,
    producer: "turnloop",
    producerVersion: PRODUCER_VERSION,
    startTime: new Date().toISOString(),
    cwd,
    model,
  };
}
