import { statSync } from "node:fs";
import { errorCode, errorMessage, warningLine } from "../events/errors.js";
import type { RepairNote } from "../events/event-parts.js";
import type { SessionEvent } from "../events/events.js";
import { age } from "../session/age.js";
import { databaseUrlOf, openSessionStore } from "../session/open-store.js";
import { turnloopHome } from "../session/paths.js";
import { foldSession } from "../session/session-model/session-model.js";
import { resolveSessionId, type SessionStore, summaryLine } from "../session/session-store.js";
import type { Command } from "./arguments.js";
import { readWithWriter } from "./log-with-writer.js";
import { PROCESS_ENDED_WORDS } from "./prompt-stop.js";
import { renderConversation } from "./render.js";

/** An id or prefix naming no session or several: a usage error, 64 as for `-p --resume`. */
const UNKNOWN_SESSION_EXIT_CODE = 64;

type SessionsCommand = Extract<
  Command,
  { kind: "sessions-list" | "sessions-show" | "sessions-delete" }
>;

/**
 * Runs `turnloop sessions [list|show|delete]` against `$TURNLOOP_HOME`.
 * @returns the exit code: 0; 64 when the id or prefix names no session or more than one; 1 when
 * the session cannot be read or deleted.
 */
export async function runSessionsCommand(
  command: SessionsCommand,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const home = turnloopHome(process.env);
  try {
    const databaseUrl = await databaseUrlOf(
      home,
      process.cwd(),
      process.env,
      command.store,
      (text) => io.stderr.write(`${warningLine(text)}\n`),
    );
    const store = openSessionStore(home, databaseUrl);
    switch (command.kind) {
      case "sessions-list":
        return await listSessions(store, command, io.stdout);
      case "sessions-show": {
        const resolved = await resolveSessionId(store, command.sessionId);
        if (!resolved.ok) {
          io.stderr.write(`turnloop: ${resolved.message}\n`);
          return UNKNOWN_SESSION_EXIT_CODE;
        }
        const { events, repaired, processEnded } = await readWithWriter(store, resolved.sessionId);
        const text = renderConversation(events, { processEnded });
        io.stdout.write(withRepairMarks(text, repaired) + notes(events));
        if (repaired.length > 0) {
          io.stderr.write(
            `turnloop: skipped ${repaired.length} damaged ${repaired.length === 1 ? "line" : "lines"} while reading (marked under the session line)\n`,
          );
        }
        return 0;
      }
      case "sessions-delete": {
        const resolved = await resolveSessionId(store, command.sessionId);
        if (!resolved.ok) {
          io.stderr.write(`turnloop: ${resolved.message}\n`);
          return UNKNOWN_SESSION_EXIT_CODE;
        }
        const deleted = await store.delete(resolved.sessionId);
        io.stderr.write(`turnloop: ${deleted ? "deleted" : "no session"} ${resolved.sessionId}\n`);
        return deleted ? 0 : 1;
      }
    }
  } catch (error) {
    const message =
      errorCode(error) === "ENOENT"
        ? `no session ${"sessionId" in command ? command.sessionId : ""}`
        : errorMessage(error);
    io.stderr.write(`turnloop: ${message}\n`);
    return 1;
  }
}

/**
 * `sessions list`: every session in the store's order, newest first, or the newest `limit`: as
 * JSON (the store's summaries, absolute ISO-8601 times; an array of the first `limit` when given),
 * or two lines each — id, age of the last activity (`3 min ago`, `yesterday`: age.ts), turns and
 * folder (`(folder gone)` after one that is not an existing directory here: the session cannot be
 * resumed until it is back), then the first prompt (with the stop `sessions show` gives a prompt
 * whose process ended before it did: `interrupted`); after a cut list, how many were left out.
 */
async function listSessions(
  store: SessionStore,
  { json, limit }: { json: boolean; limit?: number },
  stdout: NodeJS.WritableStream,
): Promise<number> {
  const all = await store.list();
  const sessions = limit === undefined ? all : all.slice(0, limit);
  if (json) {
    stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    stdout.write(`No sessions in ${store.location}.\n`);
    return 0;
  }
  const now = Date.now();
  for (const session of sessions) {
    const stop = session.interrupted ? `  [stop: interrupted (${PROCESS_ENDED_WORDS})]` : "";
    const prompt = `${summaryLine(session)}${stop}`;
    const turns = `${session.turns} turn${session.turns === 1 ? "" : "s"}`;
    const gone = session.cwd !== null && folderGone(session.cwd) ? " (folder gone)" : "";
    stdout.write(
      `${session.sessionId}  ${age(session.lastActivity, now)}  ${turns}  ${session.cwd ?? "?"}${gone}\n    ${prompt}\n`,
    );
  }
  const left = all.length - sessions.length;
  if (left > 0) {
    const more = `${left} older session${left === 1 ? "" : "s"}`;
    stdout.write(`(${more} not listed: --limit ${all.length} or no --limit lists all)\n`);
  }
  return 0;
}

/**
 * `text` (a rendered conversation) with one `[damaged line N skipped (reason)]` line per note,
 * worded as the Markdown export words them (session-view/markdown.ts), under the `session …`
 * line, or first when the log has none (its `session.start` was the damaged line).
 */
function withRepairMarks(text: string, repaired: readonly RepairNote[]): string {
  if (repaired.length === 0) {
    return text;
  }
  const marks = repaired.map((note) => `[damaged line ${note.line} skipped (${note.reason})]\n`);
  const headerEnd = text.startsWith("session ") ? text.indexOf("\n") + 1 : 0;
  return `${text.slice(0, headerEnd)}${marks.join("")}${text.slice(headerEnd)}`;
}

/** Whether `folder` is not an existing directory here (removed, or a log from another machine). */
function folderGone(folder: string): boolean {
  try {
    return !statSync(folder).isDirectory();
  } catch {
    return true;
  }
}

/**
 * What `sessions show` adds under a conversation: that nothing was asked yet (a session an editor
 * opened and left: its log holds little more than its start; not one whose prompt the session
 * model found lost with a damaged line), and that its folder is gone.
 */
function notes(events: readonly SessionEvent[]): string {
  const start = events.find((event) => event.type === "session.start");
  const asked = foldSession(events).prompts.length > 0;
  const lines = [
    ...(asked ? [] : ["(no prompt yet: nothing was asked in this session)"]),
    ...(start?.type === "session.start" && folderGone(start.data.cwd)
      ? [`(its folder ${start.data.cwd} is gone: create or restore it to resume the session)`]
      : []),
  ];
  return lines.map((line) => `${line}\n`).join("");
}
