/**
 * One `session.send` of a server session: the app's prompt hooks (`sessionStart` before the first
 * prompt after create or resume, `userPromptSubmitted`, `userPromptTransformed`), the prompt
 * itself, and the follow-ups an `agentStop` hook asks for (at most {@link MAX_AGENT_STOP_BLOCKS}).
 * Copilot protocol v3 hooks.
 */

import type { UserPrompt } from "../agent/loop.js";
import { errorMessage } from "../events/errors.js";
import type { EventInput, JsonValue, PromptBlock } from "../events/events.js";
import type { SessionMode } from "../protocol/copilot.js";
import type { Session, SessionAgentSettings } from "../session/session.js";
import type { PromptRefusal } from "../session/session-store.js";
import { type HookRunner, MAX_AGENT_STOP_BLOCKS } from "./hooks.js";
import type { SendParams } from "./params.js";
import { givenPromptBlocks, withAttachments } from "./prompt-text.js";

/** One `session.send`, waiting in the queue or running. */
export type Job = Pick<SendParams, "prompt" | "attachments" | "requestHeaders"> & {
  mode: SessionMode;
  /** The id a face on another worker gave this prompt (issue 22; remote-sessions.ts). */
  promptId?: string;
  /**
   * The prompt's blocks as its user gave them, when a face on another worker sent more than text
   * (inbox-receiver.ts): recorded as `user.message.contentBlocks`, as that face records its own.
   */
  contentBlocks?: PromptBlock[];
  /**
   * What that face gave the model only a note of, as its user is told it (agent/loop-types.ts
   * `UserPrompt.notSent`): the loop warns of it after the prompt, as for that face's own prompts.
   */
  notSent?: string[];
  /**
   * The id `session.send` answered (`messageId`), recorded on the prompt's `user.message` as its
   * `promptId` when it has none of its own: how an app's `sendAndWait` finds its prompt.
   */
  messageId?: string;
  /**
   * Tells the follower that sent it how it ended when the store holds no end of it: refused
   * before anything of it was stored, or stopped because the store refused or lost its events.
   */
  refuse?: (refusal: PromptRefusal) => void;
  /** Set by {@link runSendJob} once the prompt's own `user.message` is recorded. */
  promptRecorded?: boolean;
};

/**
 * A prompt a face on another worker sent through the inbox (issue 22, inbox-receiver.ts): its
 * id, its blocks, what the model got only a note of and how to tell its follower of a refusal,
 * as {@link Job}'s.
 */
export type RemotePrompt = Pick<Job, "promptId" | "contentBlocks" | "notSent" | "refuse">;

/**
 * The job of `session.send` `params`, in the agent mode it names, else its send mode when that is
 * one, else `sessionMode`; a follower's `remote` prompt's id, blocks and refusal as {@link Job}'s.
 */
export function jobOf(params: SendParams, sessionMode: SessionMode, remote?: RemotePrompt): Job {
  const sendMode =
    params.mode === "enqueue" || params.mode === "immediate" ? undefined : params.mode;
  return {
    prompt: params.prompt,
    mode: params.agentMode ?? sendMode ?? sessionMode,
    ...(params.attachments === undefined ? {} : { attachments: params.attachments }),
    ...(params.requestHeaders === undefined ? {} : { requestHeaders: params.requestHeaders }),
    ...remote,
  };
}

/** What a send needs of its server session. */
export interface SendJobContext {
  session: Session;
  hooks: HookRunner;
  /** The agent settings of one prompt of `job` (model, tools, system prompt, gate). */
  settingsFor(job: Job, signal: AbortSignal): Promise<SessionAgentSettings>;
  /** Writes a line about the session on the server's stderr. */
  log(message: string): void;
  /** Records `event` unless the log cannot take it any more (server-session.ts). */
  emitSafely(event: EventInput): void;
  /** `sessionStart`'s source if this is the first prompt after create or resume; taken once. */
  takeStartSource(): "new" | "resume" | undefined;
}

/**
 * How the app's prompt is recorded beside `text`, what the model reads: its attachments as sent
 * (they came as JSON), its agent mode, its images, and the prompt as given — a follower's
 * blocks, else the app's text when its attachments or a hook changed the model's.
 */
function promptDetails(
  job: Job,
  text: string,
  images: UserPrompt["images"] & object,
): Omit<UserPrompt, "content"> {
  return {
    source: "user",
    attachments: (job.attachments ?? []) as JsonValue[],
    ...(job.contentBlocks !== undefined
      ? { contentBlocks: job.contentBlocks }
      : text === job.prompt
        ? {}
        : { contentBlocks: givenPromptBlocks(job.prompt, text) }),
    agentMode: job.mode,
    ...(images.length === 0 ? {} : { images }),
    ...(job.notSent === undefined ? {} : { notSent: job.notSent }),
    ...(job.promptId === undefined && job.messageId === undefined
      ? {}
      : { promptId: job.promptId ?? job.messageId }),
  };
}

/**
 * Runs `job` to its end: hooks, the prompt, `agentStop` follow-ups. A failure or a cancel ends
 * the send; what throws (a bug, a closed log, a file that cannot be read) is told as
 * {@link sendFailed} says. Never throws.
 */
export async function runSendJob(
  context: SendJobContext,
  job: Job,
  signal: AbortSignal,
): Promise<void> {
  const promptId = job.promptId ?? job.messageId;
  const stopWatching = context.session.subscribe((event) => {
    if (
      event.type === "user.message" &&
      promptId !== undefined &&
      event.data.promptId === promptId
    ) {
      job.promptRecorded = true;
    }
  });
  try {
    await runSteps(context, job, signal);
  } catch (error) {
    sendFailed(job, error, context);
  } finally {
    stopWatching();
  }
}

/** {@link runSendJob}'s steps: hooks, the prompt, `agentStop` follow-ups. */
async function runSteps(context: SendJobContext, job: Job, signal: AbortSignal): Promise<void> {
  const { session, hooks } = context;
  const composed = await withAttachments(job.prompt, job.attachments, {
    cwd: session.cwd,
    sessionDirectory: session.directory,
  });
  let text = composed.text;
  const startSource = context.takeStartSource();
  if (startSource !== undefined) {
    const input = { source: startSource, initialPrompt: text };
    const startContext = await hooks.sessionStart(input, signal);
    if (startContext !== undefined) {
      session.emit({ type: "user.message", data: { content: startContext, source: "hook" } });
    }
  }
  text = await hooks.prompt(text, signal);
  let details = promptDetails(job, text, composed.images);
  for (let blocks = 0; ; blocks++) {
    const settings = await context.settingsFor(job, signal);
    const outcome = await session.prompt(settings, text, { signal, ...details });
    // A failed model request asked `errorOccurred` before it ended the prompt (hooks.ts).
    if ("error" in outcome) {
      // Refused unstored: a follower reads nothing of it, so it is told on the inbox. So is a
      // failure to store: the store holds no end of the prompt (it refused a batch, and takes no
      // more; or it cannot be reached), so a follower reading it would wait for ever.
      const { errorType, message } = outcome.error;
      const { promptTooLarge } = outcome;
      if (promptTooLarge !== undefined && blocks === 0) {
        job.refuse?.({ error: { errorType, message }, promptTooLarge });
      } else if (errorType === "storage") {
        job.refuse?.({ error: { errorType, message } });
      }
      return;
    }
    if (outcome.stopReason === "cancelled" || signal.aborted) {
      return;
    }
    if (blocks >= MAX_AGENT_STOP_BLOCKS) {
      return;
    }
    const input = {
      stopReason: outcome.stopReason,
      transcriptPath: session.transcriptPath,
      stop_hook_active: blocks > 0,
    };
    const followUp = await hooks.agentStop(input, signal);
    if (followUp === undefined || signal.aborted) {
      return;
    }
    text = followUp;
    details = { source: "hook", agentMode: job.mode };
  }
}

/**
 * What a send that threw `error` tells, so that whoever sent it stops waiting: a follower's prompt
 * (issue 22) whose `user.message` was not recorded is refused to it through the inbox, as an
 * over-large one is (its follower reads nothing stored of it, so nothing stored would end its
 * wait: an ACP editor gets an error for its `session/prompt`, an SDK app a `session.error` then
 * `session.idle`); else the session's apps get a `session.error` (type `internal`, stored) then
 * `session.idle`. Logged on the server's stderr either way.
 */
function sendFailed(
  job: Job,
  error: unknown,
  context: Pick<SendJobContext, "session" | "log" | "emitSafely">,
): void {
  const message = `internal error: ${errorMessage(error)}`;
  context.log(message);
  if (job.refuse !== undefined && job.promptRecorded !== true) {
    const where = `on the worker that holds session ${context.session.id}`;
    const reason = `${message} (${where}); nothing of the prompt was stored`;
    job.refuse({ error: { errorType: "internal", message: reason } });
  } else {
    context.emitSafely({ type: "session.error", data: { errorType: "internal", message } });
  }
  context.emitSafely({ type: "session.idle", data: {} });
}
