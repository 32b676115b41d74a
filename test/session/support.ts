/** Helpers for the session tests: temporary folders and golden logs built from event inputs. */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventInput, SessionEvent } from "../../src/events/events.js";
import { createEnvelope, serializeEvent } from "../../src/session/event-log.js";
import { afterEveryTest } from "../support/cleanups.js";

const temporaryDirectories: string[] = [];

afterEveryTest(async () => {
  const directories = temporaryDirectories.splice(0);
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

/** A fresh folder under the OS temp folder, removed after the current test. */
export async function makeTemporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "turnloop-session-"));
  temporaryDirectories.push(directory);
  return directory;
}

/**
 * Envelopes `inputs` as the writer would: chained `parentId`s (ephemeral ones are not expected
 * here) and timestamps one second apart from `start`.
 */
export function buildEvents(
  inputs: readonly EventInput[],
  start = new Date("2026-03-01T10:00:00.000Z"),
): SessionEvent[] {
  const events: SessionEvent[] = [];
  let parentId: string | null = null;
  for (const [index, input] of inputs.entries()) {
    const event = createEnvelope(input, parentId, new Date(start.getTime() + index * 1000));
    events.push(event);
    parentId = event.id;
  }
  return events;
}

/** The bytes of `events` as `events.jsonl` holds them. */
export function toJsonl(events: readonly SessionEvent[]): Buffer {
  return Buffer.from(events.map(serializeEvent).join(""), "utf8");
}

/** The bytes of an `events.jsonl` holding `inputs`, enveloped as {@link buildEvents} does. */
export function logBytes(inputs: readonly EventInput[], start?: Date): Buffer {
  return toJsonl(buildEvents(inputs, start));
}

/** A `session.start` input. */
export function sessionStart(
  sessionId: string,
  cwd = "/work/project",
  startTime = "2026-03-01T10:00:00.000Z",
): EventInput {
  return {
    type: "session.start",
    data: {
      sessionId,
      version: 1,
      producer: "turnloop",
      producerVersion: "0.1.0",
      startTime,
      cwd,
      model: "openai:gpt-5",
    },
  };
}

/** A `user.message` input typed by the user. */
export function userMessage(content: string): EventInput {
  return { type: "user.message", data: { content, source: "user" } };
}

/** A short whole conversation: a start, a prompt and one answered turn. */
export function goldenEvents(): SessionEvent[] {
  return buildEvents([
    sessionStart("session-1"),
    userMessage("hello"),
    { type: "assistant.turn_start", data: { turnId: "0" } },
    {
      type: "assistant.message",
      data: { messageId: "m1", content: "hi", toolRequests: [], finishReason: "stop" },
    },
    {
      type: "assistant.turn_end",
      data: { turnId: "0", status: "completed", finishReason: "stop" },
    },
  ]);
}

/** Writes `bytes` as `events.jsonl` in a fresh temporary folder. @returns its path. */
export async function writeLog(bytes: Uint8Array): Promise<string> {
  const path = join(await makeTemporaryDirectory(), "events.jsonl");
  await writeFile(path, bytes);
  return path;
}
