/**
 * Opening sessions for the server, with the id an app chose. The Copilot SDK picks every session's
 * id itself (a UUID) and refuses a `session.create` answer with another id.
 */

import { Session } from "../session/session.js";

/**
 * A new session under `home`, with `sessionId` when given.
 * @throws Error when a session with that id already exists; InvalidSessionIdError for an unsafe id.
 */
export function createSession(
  home: string,
  cwd: string,
  model: string,
  sessionId: string | undefined,
): Promise<Session> {
  return Session.create(home, cwd, model, sessionId === undefined ? {} : { sessionId });
}
