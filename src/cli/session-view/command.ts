/**
 * `turnloop sessions view <id>` and `turnloop sessions export <id> --format html|markdown|json`.
 */

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import {
  errorCode,
  errorMessage,
  makeFolders,
  terminalText,
  warningLine,
} from "../../events/errors.js";
import { databaseUrlOf, openSessionStore } from "../../session/open-store.js";
import { turnloopHome } from "../../session/paths.js";
import { resolveSessionId } from "../../session/session-store.js";
import { readWithWriter } from "../log-with-writer.js";
import { writeOutputFile } from "../output-file.js";
import { buildSessionView } from "./fold.js";
import { EXPORT_NOTE, sessionViewMarkdown } from "./markdown.js";
import { sessionViewHtml } from "./page-html.js";
import type { SessionView } from "./view-model.js";

/** An id or prefix naming no session or several: a usage error, 64 as for `-p --resume`. */
const UNKNOWN_SESSION_EXIT_CODE = 64;

/** Export formats of `turnloop sessions export`. */
export type ExportFormat = "html" | "markdown" | "json";

export interface ViewCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The working directory `--out` is relative to. */
  cwd: string;
  platform: NodeJS.Platform;
}

/** The file name of the view written in a session's folder (beside the file store's `events.jsonl`). */
export const VIEW_FILE_NAME = "view.html";

async function loadView(
  io: ViewCommandIo,
  idOrPrefix: string,
  storeFlag: string | undefined,
): Promise<{ ok: true; view: SessionView; folder: string } | { ok: false; message: string }> {
  const home = turnloopHome(io.env);
  const store = openSessionStore(
    home,
    await databaseUrlOf(home, io.cwd, io.env, storeFlag, (text) =>
      io.stderr.write(`${warningLine(text)}\n`),
    ),
  );
  const resolved = await resolveSessionId(store, idOrPrefix);
  if (!resolved.ok) {
    return resolved;
  }
  const log = await readWithWriter(store, resolved.sessionId);
  const numbered = log.events.map((event, index) => ({ event, line: log.seqs[index] ?? 0 }));
  const folder = store.filesFolder(resolved.sessionId);
  const view = buildSessionView(numbered, log.repaired, { processEnded: log.processEnded });
  return { ok: true, view, folder };
}

/** Renders `view` in `format`. JSON is the view's data (as the page draws it) with the note. */
export function renderExport(view: SessionView, format: ExportFormat): string {
  switch (format) {
    case "html":
      return sessionViewHtml(view);
    case "markdown":
      return sessionViewMarkdown(view);
    case "json":
      return `${JSON.stringify({ note: EXPORT_NOTE, ...view }, null, 2)}\n`;
  }
}

/**
 * Writes the HTML view of a session (`--out F`, default `view.html` in the session's folder:
 * the file store's, beside its events.jsonl; the PostgreSQL store's local files folder),
 * prints its path on stdout and, when `open` and a display is there, opens it with the system's
 * opener (xdg-open, open, start) without waiting for it.
 * @returns 0; 64 when the id or prefix names no session or more than one; 1 when the session
 * cannot be read or the file cannot be written.
 */
export async function runSessionsView(
  command: { sessionId: string; out?: string; open: boolean; store?: string },
  io: ViewCommandIo,
): Promise<number> {
  return withLoadedView(command, io, async (loaded) => {
    const target =
      command.out === undefined
        ? await defaultViewPath(loaded.folder)
        : resolve(io.cwd, command.out);
    await writeOutputFile(target, sessionViewHtml(loaded.view));
    io.stdout.write(`${target}\n`);
    reportRepairs(loaded.view, "html", io);
    if (command.open) {
      openWithSystem(target, io);
    }
  });
}

/**
 * Writes a session in `format` to `--out F`, or to stdout.
 * @returns 0; 64 when the id or prefix names no session or more than one; 1 when the session
 * cannot be read or the file cannot be written.
 */
export async function runSessionsExport(
  command: { sessionId: string; format: ExportFormat; out?: string; store?: string },
  io: ViewCommandIo,
): Promise<number> {
  return withLoadedView(command, io, async (loaded) => {
    const text = renderExport(loaded.view, command.format);
    if (command.out === undefined) {
      // On a terminal without control sequences (events/errors.ts terminalText); a pipe gets the data.
      const onTerminal = (io.stdout as { isTTY?: boolean }).isTTY === true;
      io.stdout.write(onTerminal ? terminalText(text) : text);
    } else {
      const target = resolve(io.cwd, command.out);
      await writeOutputFile(target, text);
      io.stderr.write(`turnloop: wrote ${target}\n`);
    }
    reportRepairs(loaded.view, command.format, io);
  });
}

/**
 * `view.html` in a session's folder, the folder made when missing: the PostgreSQL store's local
 * files folder exists only once the session kept a file there, or not at all on another worker.
 */
async function defaultViewPath(folder: string): Promise<string> {
  await makeFolders(folder, 0o700);
  return join(folder, VIEW_FILE_NAME);
}

/**
 * Loads the session `command` names and gives it to `write`: 0 once written; 64 when the id or
 * prefix names no session or more than one; 1 (the error on stderr) when the session cannot be
 * read or `write` fails.
 */
async function withLoadedView(
  command: { sessionId: string; store?: string },
  io: ViewCommandIo,
  write: (loaded: { view: SessionView; folder: string }) => Promise<void>,
): Promise<number> {
  const { sessionId } = command;
  try {
    const loaded = await loadView(io, sessionId, command.store);
    if (!loaded.ok) {
      io.stderr.write(`turnloop: ${loaded.message}\n`);
      return UNKNOWN_SESSION_EXIT_CODE;
    }
    await write(loaded);
    return 0;
  } catch (error) {
    const message = errorCode(error) === "ENOENT" ? `no session ${sessionId}` : errorMessage(error);
    io.stderr.write(`turnloop: ${message}\n`);
    return 1;
  }
}

/** Where each format shows the damaged lines it skipped. */
const REPAIRS_SHOWN: Record<ExportFormat, string> = {
  html: "marked in the view",
  markdown: "listed under the summary table",
  json: "listed in summary.repaired",
};

function reportRepairs(view: SessionView, format: ExportFormat, io: ViewCommandIo): void {
  const now = view.summary.repaired.filter((note) => note.when === "now").length;
  if (now > 0) {
    io.stderr.write(
      `turnloop: skipped ${now} damaged ${now === 1 ? "line" : "lines"} while reading (${REPAIRS_SHOWN[format]})\n`,
    );
  }
}

/** Whether a window can be opened: always on macOS and Windows, with X11 or Wayland elsewhere. */
export function hasDisplay(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (platform === "darwin" || platform === "win32") {
    return true;
  }
  return Boolean(env.DISPLAY) || Boolean(env.WAYLAND_DISPLAY);
}

function openWithSystem(path: string, io: ViewCommandIo): void {
  if (!hasDisplay(io.env, io.platform)) {
    io.stderr.write("turnloop: no display, not opening the view (open the file above)\n");
    return;
  }
  const [command, args] =
    io.platform === "darwin"
      ? ["open", [path]]
      : io.platform === "win32"
        ? ["cmd", ["/c", "start", "", path]]
        : ["xdg-open", [path]];
  const child = spawn(command, args, { detached: true, stdio: "ignore", env: io.env });
  child.on("error", (error) => {
    io.stderr.write(`turnloop: could not open the view with ${command}: ${errorMessage(error)}\n`);
  });
  child.unref();
}
