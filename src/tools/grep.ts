import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool.js";
import { namesHiddenEntry } from "./gitignore.js";
import { searchWithJavaScript } from "./grep-fallback.js";
import type { GrepOptions } from "./grep-options.js";
import {
  BLANK_PATH,
  errorResult,
  hiddenBelow,
  isGivenPath,
  missingPathMessage,
  resolveToolPath,
  runGuarded,
  statIfExists,
  textResult,
} from "./tool-support.js";

/** Lines (content mode) or files (other modes) shown when the model gives no `head_limit`. */
const DEFAULT_HEAD_LIMIT = 100;
/** Characters of result shown at most, whatever `head_limit` says. */
const MAX_RESULT_CHARACTERS = 30_000;
/** Longest line ripgrep prints in content mode (it shows a preview of longer ones). */
const MAX_LINE_COLUMNS = 1_000;

// Built on first parse (z.lazy): a run's first request needs only its JSON Schema (input-json-schemas.ts).
const grepInput = z.lazy(() => {
  // Plain numbers, not .int(): zod would add a 2^53 maximum to every schema sent to the model.
  const contextLines = z.number().min(0).optional();
  return z
    .object({
      pattern: z.string().describe("Regular expression (Rust regex syntax)"),
      path: z
        .string()
        .refine(isGivenPath, BLANK_PATH.folder)
        .optional()
        .describe("File or folder (default: working directory)"),
      glob: z.string().optional().describe('e.g. "*.ts", "src/**/*.{js,jsx}"'),
      type: z.string().optional().describe('File type, e.g. "js", "py", "rust"'),
      output_mode: z.enum(["content", "files_with_matches", "count"]).optional(),
      "-i": z.boolean().optional(),
      ignore_case: z.boolean().optional(),
      "-n": z.boolean().optional(),
      "-A": contextLines,
      "-B": contextLines,
      "-C": contextLines,
      context: contextLines,
      head_limit: z.number().positive().optional(),
      multiline: z.boolean().optional(),
    })
    .transform(
      (input): GrepOptions => ({
        pattern: input.pattern,
        path: input.path,
        glob: input.glob,
        type: input.type,
        outputMode: input.output_mode ?? "files_with_matches",
        ignoreCase: input["-i"] ?? input.ignore_case ?? false,
        lineNumbers: input["-n"] ?? true,
        linesAfter: Math.floor(input["-A"] ?? input["-C"] ?? input.context ?? 0),
        linesBefore: Math.floor(input["-B"] ?? input["-C"] ?? input.context ?? 0),
        headLimit: Math.ceil(input.head_limit ?? DEFAULT_HEAD_LIMIT),
        multiline: input.multiline ?? false,
      }),
    );
});

/**
 * `grep {pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?, head_limit?,
 * multiline?}` with ripgrep. Content lines look like `path:3:text` (Copilot CLI's format), paths
 * shown as the search path was given.
 */
export const grepTool = defineTool<GrepOptions>({
  name: "grep",
  description:
    "Search file contents with ripgrep (regex), respecting .gitignore and skipping hidden (dot) " +
    'files and folders unless path or glob names one (glob ".github/**", "**/.env*"). output_mode: ' +
    "files_with_matches (default), content (matching lines; -A/-B/-C context) or count. " +
    "Narrow with path, glob or type. head_limit caps results (default 100).",
  input: grepInput,
  kind: "search",
  mutates: false,
  changesNothing: true,
  execute: (options, context) => runGrep(options, context),
  scope: (options, cwd) => ({
    title: `Search for ${options.pattern}${options.path === undefined ? "" : ` in ${options.path}`}`,
    paths: [resolveToolPath(cwd, options.path ?? ".")],
  }),
});

/**
 * The bundled ripgrep binary's path, or undefined when its platform's package is missing. Loaded
 * with the first search, not with the tools (issue 26): the package is CommonJS outside the bundle
 * and finds its binary when imported, work that a session which never searches need not do.
 */
async function bundledRipgrepPath(): Promise<string | undefined> {
  try {
    return (await import("@vscode/ripgrep")).rgPath;
  } catch {
    return undefined;
  }
}

/**
 * Runs a search with the ripgrep binary at `ripgrepPath` (default: the bundled one), falling back
 * to a slower JavaScript search when that binary is missing or cannot be started. Never throws:
 * failures and cancellation are error results; no match is the non-error text "No matches found.".
 */
export function runGrep(
  options: GrepOptions,
  context: ToolContext,
  ripgrepPath?: string,
): Promise<ToolResult> {
  return runGuarded("grep", context.signal, async () => {
    if (options.path === "~" || options.path?.startsWith("~/")) {
      // ripgrep gets no shell to expand the home folder.
      options = { ...options, path: resolveToolPath(context.cwd, options.path) };
    }
    const target = resolveToolPath(context.cwd, options.path ?? ".");
    if (options.path !== undefined && statIfExists(target) === undefined) {
      return errorResult(missingPathMessage(options.path));
    }
    const hidden = hiddenBelow(context, target);
    // Loaded only by a search that must leave files out: most sessions have no path deny rules.
    const hiding = hidden === undefined ? undefined : await import("./grep-hidden.js");
    const ripgrep = ripgrepPath ?? (await bundledRipgrepPath());
    const search = async (usePcre2: boolean) => {
      const results = new ResultLines(options.headLimit);
      const onLine =
        hiding === undefined || hidden === undefined
          ? (line: string) => results.add(line)
          : hiding.hidingLines(options, context.cwd, hidden, results);
      const hidingArguments = hiding?.hidingArguments(options) ?? [];
      const outcome: RipgrepOutcome =
        ripgrep === undefined
          ? { kind: "not-started" }
          : await searchWithRipgrep(
              ripgrep,
              options,
              context,
              { usePcre2, hidingArguments },
              onLine,
            );
      return { results, outcome };
    };
    let { results, outcome } = await search(false);
    // Models often write look-arounds and back-references, which only PCRE2 understands.
    if (outcome.kind === "failed" && results.total === 0 && outcome.errorText.includes("--pcre2")) {
      ({ results, outcome } = await search(true));
    }
    if (outcome.kind === "not-started") {
      await searchWithJavaScript(options, context, (line) => results.addClean(line));
      return textResult(results.render(options.outputMode));
    }
    if (outcome.kind === "no-files") {
      return textResult(NO_FILES_TEXT);
    }
    if (outcome.kind === "failed" && results.total === 0) {
      return errorResult(`grep failed: ${outcome.errorText || "ripgrep exited with code 2"}`);
    }
    const rendered = results.render(options.outputMode);
    if (outcome.kind === "failed") {
      return textResult(`${rendered}\n[ripgrep also reported: ${outcome.errorText}]`);
    }
    return textResult(rendered);
  });
}

/**
 * Collects result lines, keeping the first ones within the limits and counting the rest (neither
 * cleaned nor rebuilt: a search can print millions).
 */
class ResultLines {
  readonly shown: string[] = [];
  total = 0;
  private characters = 0;
  private characterLimitReached = false;

  constructor(private readonly headLimit: number) {}

  /** Whether lines added from now on are only counted. */
  get full(): boolean {
    return this.characterLimitReached || this.shown.length >= this.headLimit;
  }

  /** A line as ripgrep printed it: cleaned ({@link sanitizeLine}) unless it is only counted. */
  add(line: string): void {
    this.addClean(this.full ? line : sanitizeLine(line));
  }

  /** A line that needs no cleaning (the JavaScript search's). */
  addClean(line: string): void {
    this.total += 1;
    if (this.full) {
      return;
    }
    if (this.shown.length > 0 && this.characters + line.length > MAX_RESULT_CHARACTERS) {
      this.characterLimitReached = true;
      return;
    }
    this.shown.push(line);
    this.characters += line.length + 1;
  }

  render(outputMode: GrepOptions["outputMode"]): string {
    if (this.total === 0) {
      return "No matches found.";
    }
    if (this.total === this.shown.length) {
      return this.shown.join("\n");
    }
    const unit = outputMode === "content" ? "lines" : "files";
    const note =
      `[Showing ${this.shown.length} of ${this.total} ${unit}; ${this.total - this.shown.length} ` +
      "left out. Raise head_limit or narrow path/glob to see more.]";
    return `${this.shown.join("\n")}\n${note}`;
  }
}

type RipgrepOutcome =
  | { kind: "done" }
  | { kind: "no-files" }
  | { kind: "failed"; errorText: string }
  | { kind: "not-started" };

/**
 * ripgrep's whole stderr when it found no file to search (an empty folder, or every file ignored,
 * hidden or left out by the glob); it then exits 2, as for an error, though nothing failed.
 */
const NO_FILES_SEARCHED = /^rg: No files were searched\b[^\n]*\n[^\n]*--debug[^\n]*\s*$/;
const NO_FILES_TEXT =
  "No matches found: no files were searched (the path holds no files, or every file is ignored, hidden or left out by the glob).";

/** How ripgrep is run: with PCRE2 or not, and the output grep-hidden.ts needs, if any. */
interface RipgrepMode {
  usePcre2: boolean;
  hidingArguments: readonly string[];
}

/**
 * Runs ripgrep, passing each output line as printed to `onLine`; the promise settles once it
 * has exited.
 */
async function searchWithRipgrep(
  ripgrepPath: string,
  options: GrepOptions,
  context: ToolContext,
  mode: RipgrepMode,
  onLine: (line: string) => void,
): Promise<RipgrepOutcome> {
  // Loaded with the first search: a run that searches nothing never loads it (issue 26).
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath, ripgrepArguments(options, mode), {
      cwd: context.cwd,
      // The commands' environment: no key for a pattern over its `/proc/self/environ` to test.
      env: context.commands.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let errorText = "";
    const onAbort = (): void => {
      child.kill("SIGKILL");
    };
    context.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (pending + decoder.write(chunk)).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        onLine(line);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errorText = (errorText + chunk.toString("utf8")).slice(0, 2_000);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      context.signal.removeEventListener("abort", onAbort);
      // Before spawn succeeded there was no process: the caller falls back to JavaScript.
      if (child.pid === undefined) {
        resolve({ kind: "not-started" });
      } else {
        reject(new Error(errorMessage(error)));
      }
    });
    child.on("close", (code) => {
      context.signal.removeEventListener("abort", onAbort);
      const rest = pending + decoder.end();
      if (rest !== "") {
        onLine(rest);
      }
      if (context.signal.aborted) {
        reject(new DOMException("grep cancelled", "AbortError"));
      } else if (code === 0 || code === 1) {
        resolve({ kind: "done" });
      } else if (NO_FILES_SEARCHED.test(errorText)) {
        resolve({ kind: "no-files" });
      } else {
        resolve({ kind: "failed", errorText: errorText.trim() });
      }
    });
  });
}

function ripgrepArguments(options: GrepOptions, mode: RipgrepMode): string[] {
  const args = [
    "--no-config",
    // Without this, ripgrep honours .gitignore only inside a git repository.
    "--no-require-git",
    "--color=never",
    "--no-heading",
    "--with-filename",
    "--sort=path",
  ];
  if (options.outputMode === "files_with_matches") {
    args.push("--files-with-matches");
  } else if (options.outputMode === "count") {
    args.push("--count");
  } else {
    args.push(`--max-columns=${MAX_LINE_COLUMNS}`, "--max-columns-preview");
    args.push(options.lineNumbers ? "--line-number" : "--no-line-number");
    args.push(`--after-context=${options.linesAfter}`, `--before-context=${options.linesBefore}`);
  }
  if (options.ignoreCase) {
    args.push("--ignore-case");
  }
  if (options.multiline) {
    args.push("--multiline", "--multiline-dotall");
  }
  if (mode.usePcre2) {
    args.push("--pcre2");
  }
  args.push(...mode.hidingArguments);
  if (options.glob !== undefined) {
    args.push(`--glob=${options.glob}`);
    if (namesHiddenEntry(options.glob)) {
      // Hidden entries are searched when the glob names one; `.git` never is (as `glob` skips it).
      args.push("--hidden", "--glob=!.git");
    }
  }
  if (options.type !== undefined) {
    args.push(`--type=${options.type}`);
  }
  args.push(`--regexp=${options.pattern}`, "--");
  if (options.path !== undefined) {
    args.push(options.path);
  }
  return args;
}

/** NUL characters from binary matches would poison the history and storage (case 30). */
function sanitizeLine(line: string): string {
  const withoutReturn = line.endsWith("\r") ? line.slice(0, -1) : line;
  return withoutReturn.replaceAll("\u0000", "\\0");
}
