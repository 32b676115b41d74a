/**
 * Chooses the session store of a run. Today there is one: the file store under the turnloop home
 * (`file-store.ts`); the PostgreSQL store (issue 22) is chosen here once it exists.
 */

import { FileSessionStore } from "./file-store.js";
import type { SessionStore } from "./session-store.js";

/** The session store for the turnloop home `home` (absolute, see `turnloopHome`). */
export function openSessionStore(home: string): SessionStore {
  return new FileSessionStore(home);
}
