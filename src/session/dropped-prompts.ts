/**
 * What a follower's client is told of prompts it sent to a session another worker runs (issue 22;
 * prompt-end.ts) when that owner drops them or, dying, leaves one unfinished: one wording for both
 * faces, ACP (remote-session.ts, which answers each prompt) and the Copilot protocol
 * (remote-prompt-end.ts, whose one `session.error` answers every prompt the client sent).
 */

import type { SentPromptNews } from "./prompt-end.js";

/** Why the owner dropped prompts: {@link SentPromptNews}' `cause`. */
export type DropCause = Extract<SentPromptNews, { kind: "dropped" }>["cause"];

/**
 * The prompts a message is about: `"this"`, the one the client waits on, or how many this worker
 * sent.
 */
export type NamedPrompts = "this" | number;

/**
 * The owner closed the session (`shutdown`), its own client aborted while the prompts were queued
 * (`abort`: the owner lives on, so a resend runs there), or its lease lapsed before they started
 * (`lapsed`). Each ends by asking the user to send again.
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
    case "lapsed":
      return `${owner} stopped (its lease lapsed) before ${named} started; ${resend} here`;
  }
}

/** The owner's lease lapsed while it ran the prompt, which ended there unfinished. */
export function interruptedPromptMessage(
  sessionId: string,
  prompt: "this" | "sent from this worker",
): string {
  const named = prompt === "this" ? "this prompt" : "a prompt sent from this worker";
  return `${ownerOf(sessionId)} stopped (its lease lapsed) while running ${named}: it ended there unfinished`;
}

function ownerOf(sessionId: string): string {
  return `the worker running session ${sessionId}`;
}
