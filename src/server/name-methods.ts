/**
 * The Copilot SDK's `session.name.*` (names, params and results of the SDK's generated
 * `rpc.d.ts`: `NameGetResult`, `NameSetRequest`, `NameSetAutoRequest`). A name is recorded as
 * `session.title_changed` in the session's log, so it survives resume and is kept by a fork.
 */

import { z } from "zod";
import type { SessionSummary } from "../session/session-store.js";
import { sessionTitle } from "../session/session-title.js";
import type { ClientConnection } from "./connection.js";
import { parseParams, sessionIdSchema, sessionOnlyParams } from "./params.js";
import type { ServerSession } from "./server-session.js";
import { openSession } from "./session-methods.js";

/** Copilot's limit on a session name, in characters after trimming (`NameSetRequest`). */
const MAX_NAME_LENGTH = 100;

const nameParams = z.looseObject({
  sessionId: sessionIdSchema,
  name: z.string().trim().min(1).max(MAX_NAME_LENGTH),
});
const autoNameParams = z.looseObject({ sessionId: sessionIdSchema, summary: z.string() });

/**
 * The session as the store lists it, from its metadata alone (`SessionStore.summary`:
 * metadata.json, PostgreSQL's `sessions` row; never its whole log nor another session's),
 * `undefined` when the store does not list it.
 */
export async function listedSession(
  connection: ClientConnection,
  sessionId: string,
): Promise<SessionSummary | undefined> {
  return connection.server.host.summary(sessionId);
}

/**
 * The name given last: this server's (`session.name.set` while the session is open here), else
 * the one the store's metadata keeps (its last `session.title_changed`).
 */
async function recordedName(
  connection: ClientConnection,
  session: ServerSession,
): Promise<string | undefined> {
  return session.name ?? (await listedSession(connection, session.id))?.name;
}

/** Records `title` as the session's name: `session.title_changed`, which the app sees. */
function rename(session: ServerSession, title: string): void {
  session.session.emit({ type: "session.title_changed", data: { title } });
  session.name = title;
}

/**
 * `session.name.get` → `{name}`: the name set last (`session.name.set`, `setAuto`, a fork's name),
 * else the session's first prompt (the title `session.list` shows), else `null`; from the store's
 * metadata, never by reading the log.
 */
export async function nameGetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.name.get", sessionOnlyParams, raw);
  const session = openSession(connection.server, sessionId);
  if (session.name !== undefined) {
    return { name: session.name };
  }
  const listed = await listedSession(connection, sessionId);
  return { name: listed === undefined ? null : sessionTitle(listed) };
}

/**
 * `session.name.set {name}` (1–100 characters once trimmed): records the name
 * (`session.title_changed {title}`).
 */
export function nameSetMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId, name } = parseParams("session.name.set", nameParams, raw);
  rename(openSession(connection.server, sessionId), name);
  return { success: true };
}

/**
 * `session.name.setAuto {summary}` → `{applied}`: names the session with the app's summary
 * (trimmed, cut to 100 characters) unless it already has a name or the summary is blank.
 */
export async function nameSetAutoMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId, summary } = parseParams("session.name.setAuto", autoNameParams, raw);
  const session = openSession(connection.server, sessionId);
  const title = summary.trim().slice(0, MAX_NAME_LENGTH);
  if (title === "" || (await recordedName(connection, session)) !== undefined) {
    return { applied: false };
  }
  rename(session, title);
  return { applied: true };
}
