import { API_KEY_VARIABLES } from "../llm/models.js";

/** The session store's database URL (open-store.ts), its password included: no command needs it. */
const DATABASE_URL_VARIABLE = "TURNLOOP_DATABASE_URL";

/**
 * The environment of every command a session runs (the `bash` tool, the interactive `!command`):
 * the host's environment without the variables turnloop reads provider API keys from — the usual
 * ones ({@link API_KEY_VARIABLES}) and `keyVariables`, the key variable of every configured
 * provider profile (config files' `providers.<name>.apiKeyEnv`) — nor the database URL
 * (`TURNLOOP_DATABASE_URL`), and with pagers off
 * (`PAGER=cat`, `GIT_PAGER=cat`: stdin is closed). Unset values are dropped.
 *
 * This keeps the key out of a command's environment, not out of its reach: any process of the
 * same user can still read turnloop's own environment from `/proc/<pid>/environ`; only the
 * sandbox's pid namespace hides it (README, "Choosing a model").
 */
export function commandEnvironment(
  environment: NodeJS.ProcessEnv,
  keyVariables: readonly string[],
): Record<string, string> {
  const removed = new Set([...API_KEY_VARIABLES, ...keyVariables, DATABASE_URL_VARIABLE]);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && !removed.has(name)) {
      result[name] = value;
    }
  }
  return { ...result, PAGER: "cat", GIT_PAGER: "cat" };
}
