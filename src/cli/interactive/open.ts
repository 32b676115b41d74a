import { errorCode, whenAborted } from "../../events/errors.js";
import type { SessionEvent } from "../../events/events.js";
import type { ModelConfiguration } from "../../llm/models.js";
import type { SessionMode } from "../../session/commands.js";
import { ConfigError } from "../../session/config-paths.js";
import type { SessionHost } from "../../session/host.js";
import type { UntrustedProject } from "../../session/mcp-servers.js";
import { defaultSessionMode } from "../../session/sandbox-setup.js";
import type { Session } from "../../session/session.js";
import type { SessionSummary } from "../../session/session-store.js";
import { SessionLockedError } from "../../session/session-store.js";
import { storeFailure } from "../../session/storage-error.js";
import type { ConversationView } from "./conversation-view.js";

/**
 * The lines a session's screen opens with (a new, resumed or switched-to session): the folder,
 * the model (and the one it ran with when opening it switched: its log, `events`, ends with this
 * open's `session.resume` and `session.model_change`, host.ts `modelOfResumed`; `unavailable`
 * says why that one is not used, e.g. its key is not set here), the session id and where the
 * commands are listed.
 */
export function openingBanner(
  session: Session,
  model: { id: string },
  events: readonly SessionEvent[] = [],
  unavailable: (previous: string) => string | undefined = () => undefined,
): string {
  const [resume, change] = events.slice(-2);
  const previous = change?.type === "session.model_change" ? change.data.previousModel : undefined;
  // Why it no longer runs with it, when that is the reason (`whose key … is not set here`), as
  // -p says it.
  const why = previous === undefined ? undefined : unavailable(previous);
  const ranWith =
    resume?.type === "session.resume" && change?.type === "session.model_change"
      ? ` (this session ran with ${previous ?? "another"}${why === undefined ? "" : `, ${why}`})`
      : "";
  return `turnloop in ${session.cwd}\nmodel ${model.id}${ranWith} · session ${session.id} · /help lists the commands`;
}

/** Said on exit when the session had no prompt: nothing was stored (issue 24 item 7). */
export const NOT_SAVED = "no prompt was sent: the session was not saved";

/**
 * The line a face ends with when `session` was not saved: no prompt was sent ({@link NOT_SAVED}),
 * or one was and storage refused its first write (a full disk, a database down), whose error the
 * face showed when it happened; `undefined` when the session was saved.
 */
export function notSavedLine(session: Session): string | undefined {
  const unsaved = session.unsavedLog();
  if (unsaved === undefined) {
    return undefined;
  }
  return unsaved.events.some((event) => event.type === "user.message")
    ? "the session was not saved: storage refused the prompt (the error above)"
    : NOT_SAVED;
}

/**
 * The mode `session` opens in: `startMode` (the run config's, shown before the session opened),
 * or for a session in another folder the default of that folder's run config (its project
 * file's `permissions.mode`: host.ts `configOf`).
 */
export function openingMode(
  host: SessionHost,
  session: Session,
  startMode: SessionMode,
): SessionMode {
  const config = host.configOf(session);
  return config === host.config ? startMode : defaultSessionMode(config);
}

/** Exit codes of the interactive face. */
export const EXIT = { ok: 0, error: 1, usage: 64 } as const;

/** Which session `turnloop` opens: a new one, the newest here, a picker, or one by id/prefix. */
export type SessionChoice =
  | { kind: "new" }
  | { kind: "continue" }
  | { kind: "pick" }
  /** `cwdGiven`: `--cwd` was on the command line, so the session must work in that folder. */
  | { kind: "id"; idOrPrefix: string; cwdGiven: boolean };

/**
 * A reopened session's model that cannot run here (its config profile removed, its key not set
 * and no configured model in its place): its id, and why (host-models.ts's words). The face opens
 * the session, says why, and refuses prompts until `/model` switches it, as ACP and the server do.
 */
export interface UnrunnableModel {
  id: string;
  problem: string;
}

/** The model of the face's next prompts: one that runs, or why the session's cannot. */
export type FaceModel = ModelConfiguration | UnrunnableModel;

/** The note saying why `model` cannot run and how to go on (at the open, and at each prompt). */
export function unrunnableNote(model: UnrunnableModel): string {
  return `${model.problem} Nothing is sent until /model <provider>:<model> switches this session to a model that runs here (/model lists the choices).`;
}

/**
 * The model `session`, just opened, runs with: a new one's, a reopened one's (host.ts
 * `modelOfResumed`, which records a switch), or why it cannot run here.
 */
export function faceModelOf(host: SessionHost, session: Session): FaceModel {
  const resolved =
    session.resumeEvent === undefined
      ? host.resolveModel(session.start.model)
      : host.modelOfResumed(session);
  if (resolved.ok) {
    return resolved.configuration;
  }
  const problem = resolved.message.replace(/^turnloop: /, "");
  return { id: session.changedModel ?? session.start.model, problem };
}

/** Says why `model` cannot run here in `view` ({@link unrunnableNote}). @returns whether it cannot. */
export function saidUnrunnable(
  model: FaceModel,
  view: Pick<ConversationView, "note"> | undefined,
): model is UnrunnableModel {
  if (!("problem" in model)) {
    return false;
  }
  view?.note(unrunnableNote(model), "error");
  return true;
}

export type Opened =
  | { ok: true; session: Session; model: FaceModel }
  | { ok: false; message: string; code: number };

/**
 * Opens the session the command line asks for, and the model to use in it (a new session's model
 * is resolved before anything is written). `pick` shows the picker of this folder's sessions. A
 * session asked for by id with a `--cwd` naming another folder than its own is a usage error,
 * before it is opened (as for `-p`: session/session-folder.ts).
 */
export async function openSession(
  host: SessionHost,
  cwd: string,
  choice: SessionChoice,
  pick: (sessions: SessionSummary[]) => Promise<string | undefined>,
): Promise<Opened> {
  const failed = (message: string, code: number = EXIT.usage): Opened => ({
    ok: false,
    message,
    code,
  });
  try {
    if (choice.kind === "new") {
      const resolved = host.resolveModel();
      if (!resolved.ok) {
        return failed(resolved.message.replace(/^turnloop: /, ""));
      }
      const session = await host.create(cwd, resolved.configuration.id, {
        saveAtFirstPrompt: true,
        morePrompts: true,
      });
      return { ok: true, session, model: resolved.configuration };
    }
    const sessionId = await chooseSessionId(host, cwd, choice, pick);
    if (!sessionId.ok) {
      return failed(sessionId.message, sessionId.code);
    }
    // A model that cannot run here is said, not refused: `/model` switches it (as ACP, the server).
    const session = await host.open(sessionId.sessionId);
    return { ok: true, session, model: faceModelOf(host, session) };
  } catch (error) {
    if (error instanceof SessionLockedError) {
      // --continue's newest session is open elsewhere: the refusal names the other ways on.
      const refusal =
        choice.kind === "continue"
          ? (await import("../../session/continue-refusal.js")).continueRefusal
          : undefined;
      return failed((await refusal?.(host, cwd, error)) ?? error.message, EXIT.error);
    }
    if (error instanceof ConfigError) {
      return failed(error.message);
    }
    if (errorCode(error) === "ENOENT") {
      return failed(`no such session in ${host.home}`);
    }
    return failed(storeFailure(error), EXIT.error);
  }
}

async function chooseSessionId(
  host: SessionHost,
  cwd: string,
  choice: Exclude<SessionChoice, { kind: "new" }>,
  pick: (sessions: SessionSummary[]) => Promise<string | undefined>,
): Promise<{ ok: true; sessionId: string } | { ok: false; message: string; code: number }> {
  switch (choice.kind) {
    case "id": {
      const resolved = await host.resolveId(choice.idOrPrefix);
      if (!resolved.ok) {
        return { ok: false, message: resolved.message, code: EXIT.usage };
      }
      const { sessionId } = resolved;
      // Loaded only with --cwd: the box is drawn before the session stack loads otherwise.
      const folders = choice.cwdGiven ? await import("../../session/session-folder.js") : undefined;
      const elsewhere = await folders?.folderElsewhere(host, sessionId, cwd);
      return folders === undefined || elsewhere === undefined
        ? resolved
        : {
            ok: false,
            message: folders.cwdElsewhereMessage(sessionId, cwd, elsewhere),
            code: EXIT.usage,
          };
    }
    case "continue": {
      const newest = await host.newestIn(cwd);
      return newest === undefined
        ? { ok: false, message: `no session to continue in ${cwd}`, code: EXIT.usage }
        : { ok: true, sessionId: newest.sessionId };
    }
    case "pick": {
      const sessions = (await host.list({ cwd })).filter(
        (summary) => summary.problem === undefined,
      );
      if (sessions.length === 0) {
        return { ok: false, message: `no session to resume in ${cwd}`, code: EXIT.usage };
      }
      const chosen = await pick(sessions);
      return chosen === undefined
        ? { ok: false, message: "no session chosen", code: EXIT.ok }
        : { ok: true, sessionId: chosen };
    }
  }
}

/**
 * The screen's question about an untrusted project's MCP servers (asked once per project and run:
 * session/config-paths.ts `askTrustOncePerRun`).
 */
export function screenTrustQuestion(view: ConversationView) {
  return async (untrusted: UntrustedProject): Promise<boolean> => {
    // Loaded at the question only, as `-p` loads it (test/cli/modules-loaded.test.ts).
    const { untrustedServersQuestion } = await import("../../session/trust-lines.js");
    return view.confirm([
      ...untrustedServersQuestion(untrusted),
      "Trust this project from now on?",
      "(One trust: its MCP servers, and its whole .turnloop/config.json applies.)",
    ]);
  };
}

/** The line for a prompt cancelled while it waited for the trust question (never begun). */
export const WAITING_CANCELLED =
  "cancelled before it began: the message was not sent (the input history keeps it)";

/**
 * The session's MCP servers being gathered and started in the background (so that the screen
 * opens at once), and the prompt waiting for them, as every face's prompt waits for its servers:
 * so for an untrusted project's trust question. That prompt has not begun: Esc is the question's
 * no, and Ctrl-C cancels the prompt before it begins (terminal-face.ts).
 */
export class ServersStart {
  /** The start under way; never rejects (a failure is shown as a note). */
  starting: Promise<void> = Promise.resolve();
  #waiting: AbortController | undefined;

  /** Whether a prompt waits for the start. */
  get waited(): boolean {
    return this.#waiting !== undefined;
  }

  /** Waits for the start. @returns `false` when {@link cancel} was called meanwhile. */
  async wait(): Promise<boolean> {
    const waiting = new AbortController();
    this.#waiting = waiting;
    try {
      const cancelled = new Promise<void>((resolve) => whenAborted(waiting.signal, resolve));
      await Promise.race([this.starting, cancelled]);
      return !waiting.signal.aborted;
    } finally {
      this.#waiting = undefined;
    }
  }

  /** Ends the waiting prompt's wait at once, if one waits (its {@link wait} returns `false`). */
  cancel(): void {
    this.#waiting?.abort();
  }
}
