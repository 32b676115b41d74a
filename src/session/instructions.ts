import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Project and user instructions for the system prompt, found the way Codex finds `AGENTS.md`
 * (developers.openai.com/codex/guides/agents-md): the user's file in `$TURNLOOP_HOME`, then one
 * file per directory from the project root (the nearest folder with `.git`, else the cwd) down to
 * the cwd, joined root first so the more specific files come later; empty files are skipped and
 * the project files together are cut at {@link INSTRUCTIONS_MAX_BYTES}, as Codex's
 * `project_doc_max_bytes`. Unlike Codex (which fills the budget root first, so a large root file
 * leaves out the cwd's), the budget goes to the nearest file first: the most specific file is
 * never the one lost. A file cut, or left out whole, says so in the prompt and in its
 * {@link InstructionFile} (README, "Instructions"). In each directory the first of
 * {@link INSTRUCTION_FILE_NAMES} wins, so a repository written for Claude Code, Gemini CLI or
 * Copilot works without an `AGENTS.md`.
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
  /** Bytes of the file used (after any cut): 0 for a file left out whole. */
  bytes: number;
  /** Whether the file was cut, or left out whole (`bytes` 0), to fit the budget. */
  truncated: boolean;
}

/** Instructions found for a cwd: the files and the system prompt section built from them. */
export interface LoadedInstructions {
  files: InstructionFile[];
  /** The section to append to the system prompt; empty when there are no files. */
  text: string;
}

/**
 * Reads the instructions that apply in `cwd`: `<home>/AGENTS.md` and the project's files, the
 * project's budget given to the nearest file first. Unreadable files are skipped (instructions
 * never stop a prompt).
 * @param home `$TURNLOOP_HOME` (default `~/.turnloop`).
 */
export function loadInstructions(cwd: string, home: string): LoadedInstructions {
  const found: Array<{ path: string; scope: InstructionFile["scope"]; content: string }> = [];
  const userPath = join(home, "AGENTS.md");
  const user = readInstructionFile(userPath);
  if (user !== undefined) {
    found.push({ path: userPath, scope: "user", content: user });
  }
  for (const directory of directoriesFromRoot(resolve(cwd))) {
    for (const name of INSTRUCTION_FILE_NAMES) {
      const path = join(directory, name);
      const content = readInstructionFile(path);
      if (content !== undefined) {
        found.push({ path, scope: "project", content });
        break;
      }
    }
  }
  // The nearest project file first (the user's file has a budget of its own).
  const budgets = new Map<string, number>();
  let left = INSTRUCTIONS_MAX_BYTES;
  for (const file of [...found].reverse()) {
    const given = file.scope === "user" ? INSTRUCTIONS_MAX_BYTES : left;
    budgets.set(file.path, given);
    left -= file.scope === "user" ? 0 : cutToBytes(file.content, given).bytes;
  }
  const files: InstructionFile[] = [];
  const sections: string[] = [];
  for (const { path, scope, content } of found) {
    const given = budgets.get(path) ?? 0;
    const { text, bytes, truncated } = cutToBytes(content, given);
    files.push({ path, scope, bytes, truncated });
    const note = truncated ? [cutNote(bytes, given)] : [];
    const body = [text.trim(), ...note].filter((part) => part !== "").join("\n");
    sections.push(`<instructions path="${path}">\n${body}\n</instructions>`);
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

/** What the prompt says of a file cut (to `given` bytes) or left out whole (`bytes` 0). */
function cutNote(bytes: number, given: number): string {
  const budget = `turnloop's ${INSTRUCTIONS_MAX_BYTES}-byte budget`;
  if (bytes === 0) {
    return `[left out: ${budget} for the project's files was spent on nearer folders' files]`;
  }
  return given === INSTRUCTIONS_MAX_BYTES
    ? `[cut: the file is longer than ${budget}]`
    : `[cut: the file is longer than the ${given} bytes left of ${budget} for the project's files, given to nearer folders' files first]`;
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
