/** What the system prompt is built from. */
export interface SystemPromptInput {
  cwd: string;
  /** `process.platform`, e.g. `linux`. */
  platform: string;
  /** The session's start, so the date is stable across turns (keeps the prompt cacheable). */
  date: Date;
  autopilot: boolean;
  /** Replaces our base prompt (`--system-prompt-file`); the rest is still added. */
  base?: string;
  /** Instruction files' section (`AGENTS.md` …), appended after the base. */
  instructions?: string;
  /** `--append-system-prompt`, last. */
  append?: string;
}

/**
 * Our system prompt: short on purpose, because every byte goes out on every request (the first
 * request of a simple prompt stays under 6 KB with the tool schemas).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  // A replaced base still says where the tools work.
  const lines =
    input.base === undefined ? basePrompt(input) : [input.base.trimEnd(), "", whereLine(input)];
  if (input.autopilot) {
    lines.push(
      "",
      "Autopilot: work autonomously until the task is fully done, then call task_complete with a short summary. Do not stop to ask unless you truly cannot continue.",
    );
  }
  for (const section of [input.instructions, input.append]) {
    if (section !== undefined && section.trim() !== "") {
      lines.push("", section.trimEnd());
    }
  }
  return lines.join("\n");
}

function basePrompt(input: SystemPromptInput): string[] {
  return [
    "You are turnloop, a coding agent working in the user's repository through tools.",
    whereLine(input),
    "",
    "How to work:",
    "- Look before you answer: use view, grep and glob to read the code instead of guessing. Relative paths resolve against the working directory.",
    "- Read a file before you change it; prefer editing over rewriting whole files; keep changes minimal and in the code's style.",
    "- Run commands to check your work (tests, builds) when you can, and report what you ran and what happened.",
    "- Independent read-only calls can go in one reply; they run in parallel.",
    "- If a tool fails, read the error and change approach instead of repeating the same call.",
    "- Do not run destructive commands (deleting data, force-pushing, rewriting history) unless asked.",
    "- Answer concisely. Quote file paths with line numbers when pointing at code.",
  ];
}

function whereLine(input: SystemPromptInput): string {
  return `Working directory: ${input.cwd}. Platform: ${input.platform}. Date: ${input.date.toISOString().slice(0, 10)}.`;
}
