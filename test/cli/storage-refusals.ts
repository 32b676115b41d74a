/**
 * What `-p` says when storage refuses a prompt, for the tests of full disks and refused
 * databases (storage-failures, first-write-failures, refused-answers, late-storage-errors).
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Message } from "../server/raw-peer.js";

/** The `-p` summary line with its time cut out (timings are not asserted). */
export function withoutTime(stderr: string): string {
  return stderr.replace(/ · \d+\.\d s · /g, " · <time> · ");
}

/**
 * `turnloop: <the session's file> could not be written (ENOSPC …): …` as a pattern, the session's
 * id a pattern too; `unsaved` as `-p` says it, or as the interactive face does (more prompts may
 * follow).
 */
export function refusal(home: string, file: string, unsaved = "the session was not saved"): string {
  return (
    `turnloop: ${home}/session-state/[0-9a-f-]{36}/${file} could not be written ` +
    `\\(ENOSPC: no space left on device, write\\): the prompt was stopped; ${unsaved}`
  );
}

/**
 * The `--output-format json` result of a prompt storage refused before anything was saved
 * (`duration_ms` as 0: set it so before comparing), `message` its error.
 */
export function unsavedResult(message: unknown): Record<string, unknown> {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    result: "",
    stop_reason: null,
    session_id: null,
    num_turns: 0,
    duration_ms: 0,
    usage: {},
    error: { type: "storage", message },
  };
}

/** The events of `sessionId`'s log, their types. */
export async function loggedTypes(home: string, sessionId: string): Promise<string[]> {
  const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** The session event a server message carries, if any. */
export function eventOf(
  message: Message,
): { type: string; data: Record<string, unknown> } | undefined {
  return message.method === "session.event"
    ? (message.params as { event: { type: string; data: Record<string, unknown> } }).event
    : undefined;
}
