/**
 * Which of many followed sessions no live worker holds, in one query (session/followed-leases.ts:
 * a worker may follow a thousand sessions; it checks them all at once, not one query each).
 */

import type { Database } from "./database.js";
import { isHeld, liveLeaseSql } from "./lease.js";

/**
 * The sessions among `sessionIds` whose lease no live worker holds (lease.ts `isHeld`, the rule
 * `withdraw` fences by); held sessions and those the store has not are left out. `leaseMs`: the
 * reader's lease length, which judges liveness (lease.ts `liveLeaseSql`). Reads only.
 */
export async function unheldSessions(
  database: Database,
  sessionIds: readonly string[],
  leaseMs: number,
): Promise<string[]> {
  if (sessionIds.length === 0) {
    return [];
  }
  const pool = await database.pool();
  const { rows } = await database.run(() =>
    pool.query<{ id: string; owner_id: string | null; owner: unknown; live: boolean }>(
      `SELECT id, owner_id, owner, ${liveLeaseSql(leaseMs)} AS live
       FROM sessions WHERE id = ANY($1::text[])`,
      [[...sessionIds]],
    ),
  );
  return rows.filter((row) => !isHeld(row)).map((row) => row.id);
}
