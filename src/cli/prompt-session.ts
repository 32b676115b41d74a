import { errorCode } from "../events/errors.js";
import { ConfigError } from "../session/config-paths.js";
import type { Reopening, SessionHost } from "../session/host.js";
import type { Session } from "../session/session.js";
import { SessionLockedError } from "../session/session-store.js";
import { storeFailure } from "../session/storage-error.js";
import type { PromptOptions } from "./arguments.js";
import { PromptResultCollector } from "./prompt-result.js";

/**
 * Why `--resume`'s value names no session (none, or several, start with it; the store's message,
 * as every command says it), checked before stdin is read: in `-p --resume fixbug` the word may
 * be a prompt (then read from stdin, whose emptiness is not the problem) or a mistyped id.
 * `undefined` without `--resume` or when it resolves.
 */
export async function unknownSession(
  host: SessionHost,
  options: PromptOptions,
): Promise<string | undefined> {
  if (options.resume === undefined) {
    return undefined;
  }
  const resolved = await host.resolveId(options.resume);
  return resolved.ok ? undefined : resolved.message;
}

/**
 * A reopen's check that the session's model resolves here (host.ts `modelRefusal`), before
 * anything is written: a refused `--resume` or `--continue` leaves the log as it was.
 */
function modelCheck(host: SessionHost): (reopening: Reopening) => string | undefined {
  return ({ start, state }) => host.modelRefusal(state.changedModel ?? start.model);
}

/**
 * Opens the session `-p` runs in: `--resume`, `--continue`, or a new one. A resumed session works
 * in its own folder: a `--cwd` (`cwdGiven`) naming another is a usage error, before it is opened.
 */
export async function openPromptSession(
  host: SessionHost,
  options: PromptOptions,
  { cwd, cwdGiven }: { cwd: string; cwdGiven: boolean },
  model: string,
): Promise<{ ok: true; session: Session } | NotOpened> {
  const failed = (message: string, kind: NotOpened["kind"] = "usage") => ({
    ok: false as const,
    message,
    kind,
  });
  let sessionId: string | undefined;
  try {
    if (options.resume !== undefined) {
      const resolved = await host.resolveId(options.resume);
      if (!resolved.ok) {
        return failed(resolved.message);
      }
      sessionId = resolved.sessionId;
      // Loaded only with --cwd (a module fewer before the first request otherwise).
      const folders = cwdGiven ? await import("../session/session-folder.js") : undefined;
      const elsewhere = await folders?.folderElsewhere(host, resolved.sessionId, cwd);
      return folders === undefined || elsewhere === undefined
        ? { ok: true, session: await host.open(resolved.sessionId, undefined, modelCheck(host)) }
        : failed(folders.cwdElsewhereMessage(resolved.sessionId, cwd, elsewhere));
    }
    if (options.continue) {
      const newest = await host.newestIn(cwd);
      if (newest === undefined) {
        return failed(`no session to continue in ${cwd}; run without --continue to start one`);
      }
      sessionId = newest.sessionId;
      return await continueNewest(host, cwd, newest.sessionId, modelCheck(host));
    }
    return { ok: true, session: await host.create(cwd, model, { saveAtFirstPrompt: true }) };
  } catch (error) {
    if (error instanceof SessionLockedError) {
      return { ...failed(error.message, "error"), held: { sessionId: error.sessionId } };
    }
    if (error instanceof ConfigError) {
      // Its folder's config file is bad (host.ts `open`): as for a new session there.
      return failed(error.message);
    }
    if (errorCode(error) === "ENOENT") {
      return failed(`no session ${options.resume ?? ""} in ${host.home}`);
    }
    // An error met while opening (a full disk, a database down) is not a usage error.
    return { ...failed(storeFailure(error), "error"), storage: { sessionId } };
  }
}

/**
 * Opens the folder's newest session for `--continue`; when another process has it open, refused
 * naming the other ways on (session/continue-refusal.ts, loaded only then).
 */
async function continueNewest(
  host: SessionHost,
  cwd: string,
  sessionId: string,
  check: (reopening: Reopening) => string | undefined,
): Promise<{ ok: true; session: Session } | NotOpened> {
  try {
    return { ok: true, session: await host.open(sessionId, undefined, check) };
  } catch (error) {
    if (!(error instanceof SessionLockedError)) {
      throw error;
    }
    const { continueRefusal } = await import("../session/continue-refusal.js");
    const message = await continueRefusal(host, cwd, error);
    return { ok: false, message, kind: "error", held: { sessionId } };
  }
}

/**
 * Why `-p` could not open its session; `storage` when the store refused (its session, if known),
 * `held` when another process holds the session.
 */
export interface NotOpened {
  ok: false;
  message: string;
  /** `usage` (exit 64: a wrong id or folder), `error` (exit 1: held elsewhere, store refused). */
  kind: "usage" | "error";
  storage?: { sessionId: string | undefined };
  held?: { sessionId: string };
}

/**
 * Says why the session could not be opened: on stderr, and, for a store's refusal or a session
 * another process holds under `--output-format json`/`stream-json`, also as the one result object
 * scripts read (README, "JSON output": one object when the prompt ends, `error` saying why, and
 * the error of a failed prompt on stderr), as a new session's refused first write says it.
 */
export function sayNotOpened(
  opened: NotOpened,
  outputFormat: PromptOptions["outputFormat"],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): void {
  const { storage, held, message } = opened;
  io.stderr.write(`turnloop: ${message}\n`);
  if ((storage === undefined && held === undefined) || outputFormat === "text") {
    return;
  }
  const outcome = { error: { errorType: "storage" as const, message } };
  const sessionId = held?.sessionId ?? storage?.sessionId ?? null;
  const result = new PromptResultCollector().result(outcome, sessionId, 0);
  // A held session is no store failure: `error.type` says `locked` (trial finding 8).
  const shown = held === undefined ? result : { ...result, error: { type: "locked", message } };
  io.stdout.write(`${JSON.stringify(shown)}\n`);
}
