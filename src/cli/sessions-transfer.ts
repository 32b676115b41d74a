/**
 * `turnloop sessions export <id> --format jsonl [--out F]` and `turnloop sessions import <file | ->`:
 * a session's log moved between stores byte for byte (issue 22): out of the file store or a
 * database, into either. The session id of an import is the `sessionId` of its `session.start`;
 * a log that records "always" grants is stored with one line more that sets them aside
 * (session/imported-log.ts).
 */

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage, warningLine } from "../events/errors.js";
import { importedLog, importNotes } from "../session/imported-log.js";
import { databaseUrlOf, openSessionStore } from "../session/open-store.js";
import { turnloopHome } from "../session/paths.js";
import { resolveSessionId } from "../session/session-store.js";
import type { Command } from "./arguments.js";
import { writeOutputFile } from "./output-file.js";

/**
 * A usage error (README's exit codes): an id or prefix naming no session or several, as for
 * `-p --resume`, or a file to import that is not there.
 */
const USAGE_EXIT_CODE = 64;

type TransferCommand = Extract<Command, { kind: "sessions-export-log" | "sessions-import" }>;

export interface TransferIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Runs an export or an import.
 * @returns 0; 64 when the id or prefix names no session or more than one, or the file to import
 * is not there; 1 when the session exists already (import), or cannot be read or written; the
 * reason on stderr.
 */
export async function runSessionsTransfer(
  command: TransferCommand,
  io: TransferIo,
): Promise<number> {
  const home = turnloopHome(io.env);
  if (command.kind === "sessions-import" && command.file !== "-" && !existsSync(command.file)) {
    // A file named on the command line that is not there is a usage error, as a --cwd is.
    io.stderr.write(`turnloop: no such file: ${command.file}\n`);
    return USAGE_EXIT_CODE;
  }
  try {
    const store = openSessionStore(
      home,
      await databaseUrlOf(home, io.cwd, io.env, command.store, (text) =>
        io.stderr.write(`${warningLine(text)}\n`),
      ),
    );
    if (command.kind === "sessions-import") {
      const file = command.file === "-" ? await readAll(io.stdin) : await readFile(command.file);
      const log = importedLog(file);
      await store.importLog(log.sessionId, log.bytes);
      const notes = importNotes(log, existsSync(log.cwd));
      io.stderr.write(`turnloop: imported ${log.sessionId} into ${store.location}\n`);
      io.stderr.write(notes.map((note) => `turnloop: ${note}\n`).join(""));
      io.stdout.write(`${log.sessionId}\n`);
      return 0;
    }
    const resolved = await resolveSessionId(store, command.sessionId);
    if (!resolved.ok) {
      io.stderr.write(`turnloop: ${resolved.message}\n`);
      return USAGE_EXIT_CODE;
    }
    const log = await store.exportLog(resolved.sessionId);
    if (command.out === undefined) {
      io.stdout.write(log);
    } else {
      const target = resolve(io.cwd, command.out);
      await writeOutputFile(target, log);
      io.stderr.write(`turnloop: wrote ${target}\n`);
    }
    return 0;
  } catch (error) {
    io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
    return 1;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks);
}
