/**
 * The Copilot SDK's `SessionConfig.infiniteSessions` (`InfiniteSessionConfig` in the SDK's
 * `types.d.ts`) as turnloop's compaction settings: `backgroundCompactionThreshold` (0–1 of the
 * model's context window, Copilot's default 0.80, turnloop's too) is the threshold at which the
 * history is compacted before the next model request (`session.compaction_start` then fires);
 * `enabled: false` compacts only when the provider rejects a request for its length. turnloop
 * compacts before the request rather than in the background, so `bufferExhaustionThreshold` has
 * nothing to add. The setting's schema is src/protocol/session-settings.ts's.
 */

import type { InfiniteSessions } from "../protocol/session-settings.js";
import type { SessionAgentSettings } from "../session/session.js";

/** The compaction threshold `infiniteSessions` asks for; `{}` keeps turnloop's. */
export function compactionSettings(
  infiniteSessions: InfiniteSessions | undefined,
): Pick<SessionAgentSettings, "compactionThreshold"> {
  if (infiniteSessions?.enabled === false) {
    return { compactionThreshold: Number.POSITIVE_INFINITY };
  }
  const threshold = infiniteSessions?.backgroundCompactionThreshold;
  return threshold === undefined ? {} : { compactionThreshold: threshold };
}
