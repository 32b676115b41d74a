/**
 * What the faces say when storage refuses a prompt, for the tests of full disks and refused
 * databases (test/cli: storage-failures, first-write-failures, refused-answers,
 * late-storage-errors, store-outage, unusable-home): `-p`'s words, the logged types, and a
 * `--headless --stdio` server's session with a prompt whose writes are refused.
 */

import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { type Message, spawnServer } from "../server/raw-peer.js";
import type { CliResult } from "./cli.js";
import { unsavedPromptResult } from "./unsaved-result.js";

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
 * (`duration_ms` as 0: set it so before comparing), `message` its error (unsaved-result.ts).
 */
export function unsavedResult(message: unknown): Record<string, unknown> {
  return unsavedPromptResult("error_during_execution", { type: "storage", message });
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

/** A server event as {@link eventOf} gives it. */
export type ServerEvent = NonNullable<ReturnType<typeof eventOf>>;

/**
 * The events a new session's log holds once its first prompt is answered with text (no tool call),
 * in order: what every face keeps of it when a later write is refused.
 */
export const FIRST_PROMPT_LOGGED = [
  "session.start",
  "user.message",
  "assistant.turn_start",
  "assistant.message",
  "assistant.usage",
  "assistant.turn_end",
];

/**
 * The events a server sends for a prompt whose reply the store refused after its turn ended
 * (the log cut off or made unwritable once the answer came): the error before the idle.
 */
export const REFUSED_AFTER_TURN = [
  "session.start",
  "user.message",
  "assistant.turn_start",
  "session.usage_info",
  "assistant.usage",
  "assistant.message",
  "assistant.turn_end",
  "session.error",
  "assistant.idle",
  "session.idle",
];

/**
 * `turnloop --headless --stdio` spawned in `cwd` with `env`, connected, with one session made
 * (`session.create` with `create`'s parameters; the server is killed when that fails); `prompt` sends a prompt there and resolves at its `session.idle` (within
 * `timeoutMs`) with every event the server sent since it started, deltas left out.
 */
export async function serverSession(
  env: NodeJS.ProcessEnv,
  cwd: string,
  create: Record<string, unknown> = {},
) {
  const server = spawnServer(["--stdio"], env, cwd);
  const { peer } = server;
  let sessionId: string;
  try {
    await peer.request("connect", {});
    const created = await peer.request("session.create", create);
    ({ sessionId } = created.result as { sessionId: string });
  } catch (error) {
    server.child.kill("SIGKILL");
    throw error;
  }
  const prompt = async (text: string, timeoutMs?: number): Promise<ServerEvent[]> => {
    await peer.request("session.send", { sessionId, prompt: text });
    await peer.waitFor((message) => eventOf(message)?.type === "session.idle", timeoutMs);
    const events = peer.messages.flatMap((message) => eventOf(message) ?? []);
    return events.filter((event) => !event.type.endsWith("_delta"));
  };
  return { ...server, sessionId, prompt };
}

/**
 * Runs `-p hi`, answered "First.", with `env` (its `TURNLOOP_HOME` is `home`, holding no session
 * yet), and checks it exits 0. @returns the session it saved: its id and folder.
 */
export async function firstSession(
  cli: (args: readonly string[], options: { env: NodeJS.ProcessEnv }) => Promise<CliResult>,
  model: { enqueue: (reply: { text: string }) => void },
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<{ sessionId: string; folder: string }> {
  model.enqueue({ text: "First." });
  expect((await cli(["-p", "hi"], { env })).code).toBe(0);
  const [sessionId = ""] = await readdir(join(home, "session-state"));
  return { sessionId, folder: join(home, "session-state", sessionId) };
}

/**
 * Makes `folder` unwritable (`chattr +i`; root ignores a mode) as the model's reply "The answer."
 * begins: its log, open already, still takes lines; no file can be made or removed in it.
 */
export function lockDuringReply(
  model: { setResponder: (respond: () => object) => void },
  folder: string,
): void {
  let locked: Promise<void> | undefined;
  model.setResponder(() => {
    locked ??= Promise.resolve().then(() => {
      execFileSync("chattr", ["+i", folder]);
    });
    return { text: "The answer.", pause: { afterEvents: 0, until: locked } };
  });
}

/**
 * A reply too long for what the disk has left (test/cli/refused-answers*.test.ts: a full disk with
 * {@link FREE_BLOCKS} free): its log line needs 15 blocks.
 */
export const ANSWER = `${"All good here. ".repeat(4000)}\nThe end of the answer.`;

/**
 * A command whose 39 KB of output, 8,000 short lines, the log cannot take in its result's line:
 * its head and tail (15,000 characters each, whole lines) need 8 blocks, all the disk has left
 * before the session's own files take theirs. (A 40 KB line with one line break at its end was
 * shown by 12,074 characters, its head alone: 3 blocks, which the log could take or not by how
 * many blocks the session's other files then held; it failed 2 of about 40 runs.)
 */
export const LOUD_COMMAND = "seq 1 8000";

/** A reply asking for {@link LOUD_COMMAND}, then the answer after it (never asked for). */
export const LOUD_CALL = {
  toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command: LOUD_COMMAND }) }],
};

/** What every face says of a call whose result the log refused (trial 39 F3). */
export const UNRECORDED_WORDS = "result is not in the session log: the log could not be written";

/** Blocks left free: the session's small files fit, {@link ANSWER}'s line does not. */
export const FREE_BLOCKS = 8;

/** What every face says of the refused reply: the log, its error, and what is kept. */
export function refusedLog(home: string): string {
  return (
    `${home}/session-state/[0-9a-f-]{36}/events\\.jsonl could not be written ` +
    "\\(ENOSPC: no space left on device, write\\): the prompt was stopped; every event written " +
    "before is kept"
  );
}
