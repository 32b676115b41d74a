import { readFile } from "node:fs/promises";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import type { ToolContext } from "./define-tool.js";
import { fileLines } from "./file-lines.js";
import { findFiles } from "./gitignore.js";
import type { GrepOptions } from "./grep-options.js";
import { decodeFileBytes } from "./text-decoding.js";
import { hiddenBelow, resolveToolPath, statIfExists } from "./tool-support.js";

/** Extensions of the ripgrep file types models use most; another type name is taken as an extension. */
const TYPE_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "hpp", "hh", "h"],
  css: ["css", "scss", "sass", "less"],
  go: ["go"],
  html: ["html", "htm"],
  java: ["java"],
  js: ["js", "mjs", "cjs", "jsx"],
  json: ["json"],
  md: ["md", "markdown"],
  markdown: ["md", "markdown"],
  py: ["py", "pyi"],
  python: ["py", "pyi"],
  rb: ["rb"],
  ruby: ["rb"],
  rust: ["rs"],
  sh: ["sh", "bash"],
  ts: ["ts", "mts", "cts", "tsx"],
  typescript: ["ts", "mts", "cts", "tsx"],
  yaml: ["yaml", "yml"],
};

/** Same limit as ripgrep's `--max-columns` in the main path (kept here to avoid an import cycle). */
const MAX_LINE_COLUMNS = 1_000;

interface SearchedFile {
  absolutePath: string;
  /** How the file is named in results, as ripgrep would name it. */
  displayPath: string;
}

/**
 * Searches like ripgrep, in JavaScript, for when the ripgrep binary cannot be started. Emits the
 * same lines ripgrep would (`path:3:text`, `path-4-context`, `--`, `path:count`, `path`) for the
 * common cases, leaving out the files {@link ToolContext.hidden} covers; the pattern is a
 * JavaScript RegExp, so exotic Rust regex syntax may differ.
 * Rejects on an invalid pattern or an abort.
 */
export async function searchWithJavaScript(
  options: GrepOptions,
  context: ToolContext,
  emit: (line: string) => void,
): Promise<void> {
  const flags = `${options.ignoreCase ? "i" : ""}${options.multiline ? "ms" : ""}`;
  const expression = new RegExp(options.pattern, `g${flags}`);
  const files = await filesToSearch(options, context);
  let printedAnyContent = false;
  for (const file of files) {
    context.signal.throwIfAborted();
    const bytes = await readFile(file.absolutePath).catch(() => undefined);
    const decoded = bytes === undefined ? undefined : decodeFileBytes(bytes);
    if (decoded?.kind !== "text") {
      continue;
    }
    const lines = fileLines(decoded.text);
    const matched = matchingLines(decoded.text, lines, expression, options.multiline);
    if (matched.size === 0) {
      continue;
    }
    if (options.outputMode === "files_with_matches") {
      emit(file.displayPath);
    } else if (options.outputMode === "count") {
      emit(`${file.displayPath}:${matched.size}`);
    } else {
      const separate = printedAnyContent && options.linesBefore + options.linesAfter > 0;
      emitContent(file.displayPath, lines, matched, options, separate, emit);
      printedAnyContent = true;
    }
  }
}

async function filesToSearch(options: GrepOptions, context: ToolContext): Promise<SearchedFile[]> {
  const root = resolveToolPath(context.cwd, options.path ?? ".");
  const stats = statIfExists(root);
  if (stats === undefined) {
    return [];
  }
  if (!stats.isDirectory()) {
    return [{ absolutePath: root, displayPath: options.path ?? root }];
  }
  const hidden = hiddenBelow(context, root);
  const globPattern = options.glob?.includes("/") ? options.glob : `**/${options.glob ?? "*"}`;
  const extensions =
    options.type === undefined ? undefined : (TYPE_EXTENSIONS[options.type] ?? [options.type]);
  const found = await findFiles(root, globPattern, context.signal);
  return found
    .filter((path) => staysBelow(root, path))
    .filter((path) => extensions === undefined || extensions.includes(extname(path).slice(1)))
    .filter((path) => hidden === undefined || !hidden(join(root, path)))
    .sort(comparePathComponents)
    .map((relativePath) => ({
      absolutePath: join(root, relativePath),
      displayPath: displayPathFor(options.path, relativePath),
    }));
}

/**
 * Whether `path`, found by a glob from `root`, lies below it: a glob such as `../x/*` reaches
 * above, where ripgrep's `--glob` (a filter of what it finds below its path) never goes, nor the
 * hidden places' judgement of a search (permissions/hidden-places.ts).
 */
function staysBelow(root: string, path: string): boolean {
  const below = relative(root, join(root, path));
  return below !== ".." && !below.startsWith(`..${sep}`) && !isAbsolute(below);
}

/** ripgrep prints found files joined to the path as given (`src/a.ts`, `./a.ts`, `/abs/a.ts`). */
function displayPathFor(givenPath: string | undefined, relativePath: string): string {
  if (givenPath === undefined) {
    return relativePath;
  }
  return givenPath.endsWith("/") ? `${givenPath}${relativePath}` : `${givenPath}/${relativePath}`;
}

/** ripgrep's `--sort=path` order: component by component, so `a/b` comes before `a-c`. */
function comparePathComponents(left: string, right: string): number {
  const leftParts = left.split("/");
  const rightParts = right.split("/");
  for (let index = 0; index < Math.min(leftParts.length, rightParts.length); index += 1) {
    const leftPart = leftParts[index] ?? "";
    const rightPart = rightParts[index] ?? "";
    if (leftPart !== rightPart) {
      return leftPart < rightPart ? -1 : 1;
    }
  }
  return leftParts.length - rightParts.length;
}

/** Zero-based indexes of the lines that hold (part of) a match. */
function matchingLines(
  text: string,
  lines: readonly string[],
  expression: RegExp,
  multiline: boolean,
): Set<number> {
  const matched = new Set<number>();
  if (!multiline) {
    const lineExpression = new RegExp(expression.source, expression.flags.replace("g", ""));
    lines.forEach((line, index) => {
      if (lineExpression.test(stripReturn(line))) {
        matched.add(index);
      }
    });
    return matched;
  }
  const lineStarts = [0];
  for (const [index, line] of lines.entries()) {
    lineStarts.push((lineStarts[index] ?? 0) + line.length + 1);
  }
  for (const match of text.matchAll(expression)) {
    const first = lineIndexAt(lineStarts, match.index);
    const last = lineIndexAt(lineStarts, match.index + Math.max(match[0].length - 1, 0));
    for (let index = first; index <= last && index < lines.length; index += 1) {
      matched.add(index);
    }
  }
  return matched;
}

function lineIndexAt(lineStarts: readonly number[], offset: number): number {
  let index = 0;
  while (index + 1 < lineStarts.length && (lineStarts[index + 1] ?? 0) <= offset) {
    index += 1;
  }
  return index;
}

function emitContent(
  displayPath: string,
  lines: readonly string[],
  matched: ReadonlySet<number>,
  options: GrepOptions,
  separateFromPrevious: boolean,
  emit: (line: string) => void,
): void {
  const printed = new Set<number>();
  for (const index of matched) {
    const first = Math.max(index - options.linesBefore, 0);
    const last = Math.min(index + options.linesAfter, lines.length - 1);
    for (let line = first; line <= last; line += 1) {
      printed.add(line);
    }
  }
  const hasContext = options.linesBefore + options.linesAfter > 0;
  let previous: number | undefined;
  for (const index of [...printed].sort((left, right) => left - right)) {
    const startsGroup = previous === undefined ? separateFromPrevious : index > previous + 1;
    if (hasContext && startsGroup) {
      emit("--");
    }
    const separator = matched.has(index) ? ":" : "-";
    const number = options.lineNumbers ? `${index + 1}${separator}` : "";
    emit(`${displayPath}${separator}${number}${previewLine(lines[index] ?? "")}`);
    previous = index;
  }
}

function previewLine(line: string): string {
  const text = stripReturn(line).replaceAll("\u0000", "\\0");
  if (text.length <= MAX_LINE_COLUMNS) {
    return text;
  }
  return `${text.slice(0, MAX_LINE_COLUMNS)} [... omitted end of long line]`;
}

function stripReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
