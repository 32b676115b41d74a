import { isSecretName } from "../events/secrets.js";
import { API_KEY_VARIABLES } from "../llm/models.js";

/** The session store's database URL (open-store.ts), its password included: no command needs it. */
const DATABASE_URL_VARIABLE = "TURNLOOP_DATABASE_URL";

/**
 * What a program that would wait for a person gets instead, since a command has no terminal and
 * its stdin is closed: an editor (git's `GIT_EDITOR` and `GIT_SEQUENCE_EDITOR`, then `VISUAL` and
 * `EDITOR`, which other programs read) that fails at once, saying why on stderr, so that
 * `git commit` without `-m` ends with git's own error instead of a vim screen until the timeout;
 * and no prompt on a terminal for git's credentials (`GIT_TERMINAL_PROMPT=0`). Git runs an
 * editor value through `sh -c` with the file's path after it (git-var(1)), as `sh` takes it here.
 * A command in an ACP client's terminal gets them through `terminal/create`'s `env`, where nobody
 * types either (acp/client-terminal-runner.ts).
 */
export const NO_TERMINAL_DEFAULTS: Readonly<Record<string, string>> = (() => {
  const editor = `sh -c 'echo "turnloop: no editor here (no terminal, stdin closed): give the text in the command, e.g. git commit -m" >&2; exit 1' editor`;
  return {
    GIT_EDITOR: editor,
    GIT_SEQUENCE_EDITOR: editor,
    VISUAL: editor,
    EDITOR: editor,
    GIT_TERMINAL_PROMPT: "0",
  };
})();

/**
 * The variables of `environment` that commands do not get: those turnloop reads provider API keys
 * from (the usual ones, {@link API_KEY_VARIABLES}, and `keyVariables`, the key variable of every
 * configured provider profile: config files' `providers.<name>.apiKeyEnv`), the database URL
 * (`TURNLOOP_DATABASE_URL`), and every one whose name looks secret (events/secrets.ts
 * `isSecretName`: a name segment that is or ends with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASS
 * or PASSPHRASE, or starts with SECRET, PASSWORD or PASSWD, or names credentials, CREDS,
 * CREDENTIAL(S) or AUTH, in a name that is no path or switch, or ends with a kind of token, JWT,
 * LOGIN or PAT; the rule redaction follows too; Codex's default
 * `shell_environment_policy` drops `*KEY*`, `*SECRET*` and `*TOKEN*` as substrings, which takes
 * `KEYMAP` and `TOKENIZERS_PARALLELISM` too) but those `kept` names (config
 * `shellEnvironment.keep`, run-config.ts `keptVariables`, which cannot bring back the first three
 * kinds). Sorted by name; unset values are not counted. Redacting a value from a command's output
 * is no guard: `echo "$GITHUB_TOKEN" | rev` prints it unrecognised (a trial's finding).
 */
export function droppedVariables(
  environment: NodeJS.ProcessEnv,
  keyVariables: readonly string[],
  kept: ReadonlyArray<{ readonly value: string }> = [],
): string[] {
  const always = new Set([...API_KEY_VARIABLES, ...keyVariables, DATABASE_URL_VARIABLE]);
  const keptNames = new Set(kept.map(({ value }) => value));
  return Object.entries(environment)
    .filter(
      ([name, value]) =>
        value !== undefined && (always.has(name) || (isSecretName(name) && !keptNames.has(name))),
    )
    .map(([name]) => name)
    .sort();
}

/**
 * The environment of every command a session runs (the `bash` tool, the interactive `!command`),
 * in the sandbox or not: the host's environment without {@link droppedVariables} (provider keys,
 * the database URL, and secret-looking names but those in `kept`),
 * with pagers off (`PAGER=cat`, `GIT_PAGER=cat`: stdin is closed), and with
 * {@link NO_TERMINAL_DEFAULTS} where the host's environment does not set them. Unset values are
 * dropped.
 *
 * This keeps the key out of a command's environment, not out of its reach: any process of the
 * same user can still read turnloop's own environment from `/proc/<pid>/environ`; only the
 * sandbox's pid namespace hides it (README, "Choosing a model").
 */
export function commandEnvironment(
  environment: NodeJS.ProcessEnv,
  keyVariables: readonly string[],
  kept: ReadonlyArray<{ readonly value: string }> = [],
): Record<string, string> {
  const removed = new Set(droppedVariables(environment, keyVariables, kept));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && !removed.has(name)) {
      result[name] = value;
    }
  }
  return { ...NO_TERMINAL_DEFAULTS, ...result, PAGER: "cat", GIT_PAGER: "cat" };
}

/**
 * One sentence saying what commands get of `environment`: every variable, or every variable but
 * those {@link droppedVariables} drops (by name, sorted), then, in brackets, which kinds are
 * dropped and the names `kept` keeps (config `shellEnvironment.keep`). `turnloop config` shows it
 * on its `commands' environment` row, e.g. `every variable but GITHUB_TOKEN (not passed on: …)`.
 */
export function describeCommandEnvironment(
  environment: NodeJS.ProcessEnv,
  keyVariables: readonly string[],
  kept: ReadonlyArray<{ readonly value: string }> = [],
): string {
  const dropped = droppedVariables(environment, keyVariables, kept);
  const kinds = `not passed on: provider keys, ${DATABASE_URL_VARIABLE}, names with a part that is or ends with KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASS or PASSPHRASE, or starts with SECRET, PASSWORD or PASSWD, or names credentials (CRED, CREDS, CREDENTIAL, AUTH) in a name that is no path or switch, or ends with a kind of token (JWT, LOGIN, PAT)`;
  const keeps =
    kept.length === 0
      ? ""
      : `; shellEnvironment.keep keeps ${kept.map(({ value }) => value).join(", ")}`;
  const which =
    dropped.length === 0
      ? "every variable; none set here is held back"
      : `every variable but ${dropped.join(", ")}`;
  return `${which} (${kinds}${keeps})`;
}
