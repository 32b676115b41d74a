import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Project and user instructions for the system prompt, found the way Codex finds `AGENTS.md`
 * (developers.openai.com/codex/guides/agents-md): the user's file in `$TURNLOOP_HOME`, then one
 * file per directory from the project root (the nearest folder with `.git`, else the cwd) down to
 * the cwd, joined root first so the more specific files come later; empty files are skipped and
 * the project files together are cut at {@link INSTRUCTIONS_MAX_BYTES}, as Codex's
 * `project_doc_max_bytes`. In each directory the first of {@link INSTRUCTION_FILE_NAMES} wins, so
 * a repository written for Claude Code, Gemini CLI or Copilot works without an `AGENTS.md`.
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

/** One file that went into the system prompt. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  /** `user`: `$TURNLOOP_HOME/AGENTS.md`; `project`: the repository's; `system-prompt-file`: `--system-prompt-file`. */
  scope: "user" | "project" | "system-prompt-file";
  /** Bytes of the file used (after any cut). */
  bytes: number;
  /** Whether the file was cut to fit the budget. */
  truncated: boolean;
}

/** Instructions found for a cwd: the files and the system prompt section built from them. */
export interface LoadedInstructions {
  files: InstructionFile[];
  /** The section to append to the system prompt; empty when there are no files. */
  text: string;
}

/**
 * Reads the instructions that apply in `cwd`: `<home>/AGENTS.md` and the project's files.
 * Unreadable files are skipped (instructions never stop a prompt).
 * @param home `$TURNLOOP_HOME` (default `~/.turnloop`).
 */
export function loadInstructions(cwd: string, home: string): LoadedInstructions {
  const files: InstructionFile[] = [];
  const sections: string[] = [];
  const add = (path: string, scope: InstructionFile["scope"], budget: number): number => {
    const content = readInstructionFile(path);
    if (content === undefined || budget <= 0) {
      return 0;
    }
    const { text, bytes, truncated } = cutToBytes(content, budget);
    files.push({ path, scope, bytes, truncated });
    const note = truncated
      ? `\n[cut: the file is longer than turnloop's ${budget}-byte budget]`
      : "";
    sections.push(`<instructions path="${path}">\n${text.trim()}${note}\n</instructions>`);
    return bytes;
  };
  add(join(home, "AGENTS.md"), "user", INSTRUCTIONS_MAX_BYTES);
  let budget = INSTRUCTIONS_MAX_BYTES;
  for (const directory of directoriesFromRoot(resolve(cwd))) {
    const path = INSTRUCTION_FILE_NAMES.map((name) => join(directory, name)).find(
      (candidate) => readInstructionFile(candidate) !== undefined,
    );
    if (path !== undefined) {
      budget -= add(path, "project", budget);
    }
  }
  const text =
    sections.length === 0
      ? ""
      : [
          "Instructions from the user and the project follow, each with its file's path. Follow them; later (more specific) files take precedence over earlier ones.",
          ...sections,
        ].join("\n\n");
  return { files, text };
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
 * The file's text when it is a regular, non-empty, readable file; else undefined. A missing file
 * (the usual case: the user's file and up to four names per folder are tried at every prompt)
 * is found without an error thrown and caught (`throwIfNoEntry: false`): building Node's error
 * and its stack cost more than the `stat` itself (issue 26 figure 7d, bench/notes/headless.md).
 */
function readInstructionFile(path: string): string | undefined {
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) {
      return undefined;
    }
    const text = readFileSync(path, "utf8");
    return text.trim() === "" ? undefined : text;
  } catch {
    return undefined;
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
