/**
 * What a follower's client is told of prompts it sent to a session another worker runs (issue 22;
 * prompt-end.ts) when that owner drops them or, dying, leaves one unfinished: one wording for both
 * faces, ACP (remote-session.ts, which answers each prompt) and the Copilot protocol
 * (remote-prompt-end.ts, whose one `session.error` answers every prompt the client sent).
 */

import type { SentPromptNews } from "./prompt-end.js";
import type { LeaseGone } from "./session-store.js";

/** Why the owner dropped prompts: {@link SentPromptNews}' `cause`. */
export type DropCause = Extract<SentPromptNews, { kind: "dropped" }>["cause"];

/**
 * The prompts a message is about: `"this"`, the one the client waits on, or how many this worker
 * sent.
 */
export type NamedPrompts = "this" | number;

/**
 * The owner closed the session (`shutdown`), its own client aborted while the prompts were queued
 * (`abort`: the owner lives on, so a resend runs there), or it was gone before they started
 * (prompt-end.ts `OwnerGone`: a resend claims the session here, except when another worker took
 * it over, which then runs it). Each ends by asking the user to send again.
 */
export function droppedPromptsMessage(
  sessionId: string,
  cause: DropCause,
  prompts: NamedPrompts,
): string {
  const owner = ownerOf(sessionId);
  const single = prompts === "this";
  const one = prompts === 1;
  const counted = single ? "" : `${prompts} ${one ? "prompt" : "prompts"}`;
  const named = single ? "this prompt" : `${counted} sent from this worker`;
  const queued = single
    ? "this queued prompt"
    : `${prompts} queued ${one ? "prompt" : "prompts"} sent from this worker`;
  const resend = single
    ? "send it again to run it"
    : one
      ? "send again to run it"
      : "send again to run them";
  switch (cause) {
    case "shutdown":
      return `${owner} closed it before ${named} ended; ${resend} here`;
    case "abort":
      return `${owner} dropped ${queued} unrun: its own client aborted; ${resend}`;
    case "replaced":
      return `another worker took session ${sessionId} over before ${named} started; ${resend}`;
    case "ended":
    case "lapsed":
    case "released":
      return `${owner} ${goneBecause(cause)} before ${named} started; ${resend} here`;
  }
}

/**
 * The owner was gone ({@link LeaseGone}) while it ran the prompt, which ended there unfinished:
 * `this` one the client waits on, one `sent from this worker`, or (`followed`) a prompt the client
 * only saw start (another client's: session/followed-leases.ts).
 */
export function interruptedPromptMessage(
  sessionId: string,
  prompt: "this" | "sent from this worker" | "followed",
  cause: LeaseGone,
): string {
  const named =
    prompt === "this"
      ? "this prompt"
      : prompt === "followed"
        ? "a prompt"
        : "a prompt sent from this worker";
  return `${ownerOf(sessionId)} ${goneBecause(cause)} while running ${named}: it ended there unfinished`;
}

/**
 * What is known of a gone owner: its process was seen gone (`ended`), its lease was not renewed
 * (`lapsed`: whether the process lives is not known), or no worker held the lease (`released`).
 */
function goneBecause(cause: LeaseGone): string {
  switch (cause) {
    case "ended":
      return "stopped (its process is gone)";
    case "lapsed":
      return "let its lease lapse (not renewed in time)";
    case "released":
      return "lost its lease (no worker holds the session)";
  }
}

function ownerOf(sessionId: string): string {
  return `the worker running session ${sessionId}`;
}
