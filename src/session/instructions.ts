import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errorCode } from "../events/errors.js";
import type { SessionEventOf } from "../events/events.js";
import { tagBody } from "../events/tag-body.js";
import { readProjectFile, wholeUtf8Prefix } from "../tools/project-file.js";
import { decodeFileBytes } from "../tools/text-decoding.js";
import type { Session } from "./session.js";

/**
 * Project and user instructions for the system prompt, found the way Codex finds `AGENTS.md`
 * (developers.openai.com/codex/guides/agents-md): the user's file in `$TURNLOOP_HOME`, then one
 * file per directory from the project root (the nearest folder with `.git`, else the cwd) down to
 * the cwd, joined root first so the more specific files come later; empty files are skipped and
 * the project files together fit in {@link INSTRUCTIONS_MAX_BYTES}, as Codex's
 * `project_doc_max_bytes`. Unlike Codex (which fills the budget root first, so a large root file
 * leaves out the cwd's) and unlike a budget spent nearest first (where a large file in the cwd
 * leaves out the root's rules), the budget is shared ({@link fairShares}): a file no longer than
 * its share goes in whole, and only a file longer than its share is cut, at its end, so no file
 * is left out whole for another's size. A cut file says so in the prompt, in its
 * {@link InstructionFile} and in a `session.warning` ({@link recordInstructions}); a file
 * that is not text (binary data) is left out with a warning, in the words `-p` refuses binary
 * stdin with (README, "Project instructions"). In each directory the first of
 * {@link INSTRUCTION_FILE_NAMES} that holds text wins, so a repository written for Claude Code,
 * Gemini CLI or Copilot works without an `AGENTS.md`.
 */

/** Candidate names in each directory, first match wins (AGENTS.md, then the other agents' files). */
export const INSTRUCTION_FILE_NAMES = [
  "AGENTS.md",
  "CLAUDE.md",
  "GEMINI.md",
  join(".github", "copilot-instructions.md"),
] as const;

/** Budget of the project files together, and of the user's file (bytes of UTF-8), as Codex's default. */
export const INSTRUCTIONS_MAX_BYTES = 32 * 1024;

/** The `warningType` of a `session.warning` naming an instruction file cut to fit its budget. */
export const INSTRUCTIONS_CUT = "instructions_cut";
/** The `warningType` of a `session.warning` naming an instruction file left out as not text. */
export const INSTRUCTIONS_NOT_TEXT = "instructions_not_text";
/**
 * The `warningType` of a `session.warning` naming a project's instruction file that was not read:
 * it leads out of the project or into a hidden place, is not a regular file, or cannot be read
 * (a link to itself, a path too long).
 */
export const INSTRUCTIONS_REFUSED = "instructions_refused";

/**
 * The most of one instruction file read (bytes): twice the budget. Decoded, a byte of the file
 * is at least half a byte of UTF-8 (UTF-16), so a longer file is cut to its budget anyway and
 * its start is all that is used; the rest is never read (a trial's 1 GiB `AGENTS.md`).
 */
const INSTRUCTION_READ_BYTES = 2 * INSTRUCTIONS_MAX_BYTES;

/** One file that went into the system prompt. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  /** `user`: `$TURNLOOP_HOME/AGENTS.md`; `project`: the repository's; `system-prompt-file`: `--system-prompt-file`. */
  scope: "user" | "project" | "system-prompt-file";
  /** Bytes of the file used (after any cut). */
  bytes: number;
  /** Whether the file was cut to fit the budget (logs of older versions: or left out whole, `bytes` 0). */
  truncated: boolean;
}

/** What a user is told about the instructions: `warningType` and a sentence. */
export interface InstructionWarning {
  warningType: typeof INSTRUCTIONS_CUT | typeof INSTRUCTIONS_NOT_TEXT | typeof INSTRUCTIONS_REFUSED;
  message: string;
}

/** Instructions found for a cwd: the files and the system prompt section built from them. */
export interface LoadedInstructions {
  files: InstructionFile[];
  /** The section to append to the system prompt; empty when there are no files. */
  text: string;
  /** Files cut to fit their budget and files left out as not text, in the order found. */
  warnings: InstructionWarning[];
}

/** A file found, its text decoded, and the bytes of UTF-8 it gets in the prompt. */
interface FoundFile {
  path: string;
  scope: "user" | "project";
  content: string;
  /** Bytes of `content` as UTF-8. */
  size: number;
  /** Bytes it may take: its budget (the user's file) or its share (a project file). */
  given: number;
}

/**
 * Reads the instructions that apply in `cwd`: `<home>/AGENTS.md` and the project's files, the
 * project's budget shared by its files. Instructions never stop a prompt: a file that cannot be
 * read, is refused or is not text is left out with a warning.
 * @param home `$TURNLOOP_HOME` (default `~/.turnloop`).
 */
export function loadInstructions(cwd: string, home: string): LoadedInstructions {
  const warnings: InstructionWarning[] = [];
  const found = findFiles(cwd, home, warnings);
  const files: InstructionFile[] = [];
  const sections: string[] = [];
  for (const file of found) {
    const { text, bytes, truncated } = cutToBytes(file.content, file.given);
    files.push({ path: file.path, scope: file.scope, bytes, truncated });
    const note = truncated ? [`[cut: ${cutReason(file, bytes)}]`] : [];
    if (truncated) {
      warnings.push({
        warningType: INSTRUCTIONS_CUT,
        message: `${file.path} was cut to fit: ${cutReason(file, bytes)}; README "Project instructions" says how the budget is shared`,
      });
    }
    const body = [tagBody(text.trim(), "instructions"), ...note]
      .filter((part) => part !== "")
      .join("\n");
    sections.push(`<instructions path="${file.path}">\n${body}\n</instructions>`);
  }
  const text =
    sections.length === 0
      ? ""
      : [
          "Instructions from the user and the project follow, each with its file's path. Follow them; later (more specific) files take precedence over earlier ones.",
          ...sections,
        ].join("\n\n");
  return { files, text, warnings };
}

/**
 * The user's file and the project's (one per folder from the root down to `cwd`), each with its
 * budget; a file that is not text or is refused (README, "Project files") is skipped, named in
 * `warnings`, and the folder's next name tried.
 */
function findFiles(cwd: string, home: string, warnings: InstructionWarning[]): FoundFile[] {
  const read = (path: string, project?: string) =>
    usableText(
      path,
      project === undefined ? undefined : { folder: project, turnloopHome: home },
      warnings,
    );
  const found: FoundFile[] = [];
  const userPath = join(home, "AGENTS.md");
  const user = read(userPath);
  if (user !== undefined) {
    found.push({
      path: userPath,
      scope: "user",
      content: user.text,
      size: user.size,
      given: INSTRUCTIONS_MAX_BYTES,
    });
  }
  const project: FoundFile[] = [];
  const directories = directoriesFromRoot(resolve(cwd));
  const root = directories[0] ?? resolve(cwd);
  for (const directory of directories) {
    for (const name of INSTRUCTION_FILE_NAMES) {
      const path = join(directory, name);
      const content = read(path, root);
      if (content !== undefined) {
        project.push({
          path,
          scope: "project",
          content: content.text,
          size: content.size,
          given: 0,
        });
        break;
      }
    }
  }
  const shares = fairShares(
    project.map((file) => file.size),
    INSTRUCTIONS_MAX_BYTES,
  );
  project.forEach((file, index) => {
    file.given = shares[index] ?? 0;
  });
  return [...found, ...project];
}

/**
 * The text of the instruction file at `path` and its size (bytes), or undefined when it is not
 * used: missing or empty, or left out with a warning pushed to `warnings` (not text; refused by
 * the reader of project files, `project` the folder a repository's file must lie in).
 */
function usableText(
  path: string,
  project: { folder: string; turnloopHome: string } | undefined,
  warnings: InstructionWarning[],
): { text: string; size: number } | undefined {
  const file = readInstructionFile(path, project);
  if (file?.kind === "binary") {
    const type = file.mediaType === undefined ? "" : ` (${file.mediaType})`;
    warnings.push({
      warningType: INSTRUCTIONS_NOT_TEXT,
      message: `${path} is binary data${type}, not text; it was left out of the instructions`,
    });
    return undefined;
  }
  if (file?.kind === "refused") {
    warnings.push({
      warningType: INSTRUCTIONS_REFUSED,
      message: `${path} ${file.reason}; it was left out of the instructions (README, "Project files")`,
    });
    return undefined;
  }
  return file;
}

/**
 * Each of `sizes`' share of `budget` (bytes), max-min fair: taken smallest first, a file no
 * longer than an equal share of what the smaller ones left gets all of itself; the files longer
 * than that share what is left equally. All fit: each gets its size.
 */
export function fairShares(sizes: readonly number[], budget: number): number[] {
  const shares = sizes.map(() => 0);
  const bySize = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size);
  let left = budget;
  bySize.forEach(({ size, index }, position) => {
    const share = Math.min(size, Math.floor(left / (bySize.length - position)));
    shares[index] = share;
    left -= share;
  });
  return shares;
}

/** Why `file` was cut to `bytes`: the prompt's note and the warning say it alike. */
function cutReason(file: FoundFile, bytes: number): string {
  const kept = `only its first ${bytes} of ${file.size} bytes are used`;
  const budget = `turnloop's ${INSTRUCTIONS_MAX_BYTES}-byte budget`;
  return file.scope === "user"
    ? `${kept} (${budget} for the user's file)`
    : `${kept} (its share of ${budget} for the project's files)`;
}

/** What `session.instructions_loaded` records: the files used and what the user was told of them. */
export type InstructionsRecord = SessionEventOf<"session.instructions_loaded">["data"];

/**
 * Records `record` (the files used, `--append-system-prompt`'s bytes) with `warnings` in `session`
 * as `session.instructions_loaded` when they differ from the last one its log holds (this
 * process's, or an earlier one's: a continued or resumed session), and emits each warning that
 * last record did not hold as a `session.warning` (`-p` says it on stderr, the interactive
 * session on its screen, ACP as an agent message, the SDK as an event). So a session is told of a
 * cut or binary file once, not at every prompt or run, and again when its warning's words change
 * (a cut file's size) or it comes back after the file was fixed.
 */
export function recordInstructions(
  session: Session,
  record: InstructionsRecord,
  warnings: readonly InstructionWarning[],
): void {
  const next: InstructionsRecord =
    warnings.length === 0 ? record : { ...record, warnings: warnings.map((item) => ({ ...item })) };
  const previous = session.instructions ?? { files: [] };
  if (JSON.stringify(next) === JSON.stringify(previous)) {
    return;
  }
  const told = new Set((previous.warnings ?? []).map((item) => JSON.stringify(item)));
  session.emit({ type: "session.instructions_loaded", data: next });
  for (const data of warnings) {
    if (!told.has(JSON.stringify(data))) {
      session.emit({ type: "session.warning", data: { ...data } });
    }
  }
}

/** The project root (nearest ancestor with `.git`, else `cwd`) and each folder down to `cwd`. */
function directoriesFromRoot(cwd: string): string[] {
  const chain: string[] = [];
  let directory = cwd;
  for (;;) {
    chain.unshift(directory);
    if (existsSync(join(directory, ".git"))) {
      return chain;
    }
    const parent = dirname(directory);
    if (parent === directory) {
      return [cwd];
    }
    directory = parent;
  }
}

/**
 * The file's text (decoded as the `view` tool and stdin decode: UTF-8, UTF-16 with a byte order
 * mark, else windows-1252) and its size (bytes of UTF-8; of the file, for one longer than
 * {@link INSTRUCTION_READ_BYTES}, of which only the start is read) when it is a regular,
 * non-empty, readable file; `binary` when its bytes are not text (NUL bytes, a known binary
 * signature, mostly control characters); `refused` when the one reader of project files
 * (tools/project-file.ts) refuses it: with `project` (a repository's file), one that leads out of
 * the project folder or into a hidden place, any file that is not a regular one (a FIFO,
 * `/dev/zero`), and one that cannot be read (a link to itself, `ELOOP`; a path too long,
 * `ENAMETOOLONG`: the system's words); else undefined (no file, a folder: {@link isNoFile}). A missing file (the usual case:
 * the user's file and up to four names per folder are tried at every prompt) is found without an
 * error thrown and caught (`throwIfNoEntry: false`): building Node's error and its stack cost
 * more than the `stat` itself (issue 26 figure 7d, bench/notes/headless.md).
 */
function readInstructionFile(
  path: string,
  project: { folder: string; turnloopHome: string } | undefined,
):
  | { kind: "text"; text: string; size: number }
  | { kind: "binary"; mediaType: string | undefined }
  | { kind: "refused"; reason: string }
  | undefined {
  if (isNoFile(path)) {
    return undefined;
  }
  const file = readProjectFile(path, {
    maxBytes: INSTRUCTION_READ_BYTES,
    overLimit: "cut",
    ...(project === undefined ? {} : { project }),
  });
  if (file.kind !== "read") {
    return file.kind === "missing" ? undefined : file;
  }
  const decoded = decodeFileBytes(file.cut ? wholeUtf8Prefix(file.bytes) : file.bytes);
  if (decoded.kind === "binary") {
    return { kind: "binary", mediaType: decoded.mediaType };
  }
  if (decoded.text.trim() === "") {
    return undefined;
  }
  const size = file.cut ? file.size : Buffer.byteLength(decoded.text);
  return { kind: "text", text: decoded.text, size };
}

/**
 * Whether nothing at `path` can be an instruction file: nothing is there (a dangling link
 * included), a folder of that name is, or a folder of its path is a file (`ENOTDIR`: a `.github`
 * file holds no `copilot-instructions.md`). Any other `stat` error (`ELOOP`, `ENAMETOOLONG`, `EACCES`,
 * `EIO`) is not: the file is then refused by readProjectFile, which names the error, and the
 * prompt runs without it (a warning, not a failed prompt, as a FIFO is refused).
 */
function isNoFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? true;
  } catch (error) {
    return errorCode(error) === "ENOTDIR";
  }
}

/** Cuts `text` to at most `maxBytes` of UTF-8 at a character boundary. */
function cutToBytes(
  text: string,
  maxBytes: number,
): { text: string; bytes: number; truncated: boolean } {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= maxBytes) {
    return { text, bytes: encoded.length, truncated: false };
  }
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) {
    end--;
  }
  return { text: encoded.subarray(0, end).toString("utf8"), bytes: end, truncated: true };
}
