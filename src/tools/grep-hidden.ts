import { resolve } from "node:path";
import type { GrepOptions } from "./grep-options.js";

/**
 * ripgrep arguments for a search that must leave files out ({@link hidingLines}): in content and
 * count modes each file name is followed by a NUL (`--null`), so a name holding `:` is read
 * whole, and content lines always carry their number, which tells a match (`3:`) from a
 * context line (`3-`).
 */
export function hidingArguments(options: GrepOptions): string[] {
  if (options.outputMode === "files_with_matches") {
    return [];
  }
  return options.outputMode === "content" ? ["--null", "--line-number"] : ["--null"];
}

/** Where {@link hidingLines} sends the lines it passes on. */
export interface LineSink {
  add(line: string): void;
  /** Whether lines added now are only counted, not kept: they need not be built. */
  readonly full: boolean;
}

/**
 * Turns ripgrep's output lines, made with {@link hidingArguments}, into the lines a search
 * without them prints (`path:3:text`, `path-4-text`, `path:2`, `path`), passing on only those of
 * files `hidden` does not cover (paths resolved against `cwd`, where ripgrep runs). The `--`
 * between groups of context lines is kept only between two lines that are shown. Each file is
 * judged once: with `--sort=path` the lines of a file come together, so the verdict of the last
 * path is kept (a search with 500,000 matching lines asked `hidden` 500,000 times; trial 32).
 */
export function hidingLines(
  options: GrepOptions,
  cwd: string,
  hidden: (path: string) => boolean,
  sink: LineSink,
): (line: string) => void {
  let shownAny = false;
  let separatorPending = false;
  let lastPath: string | undefined;
  let lastHidden = false;
  return (line) => {
    const nul = line.indexOf("\u0000");
    if (options.outputMode === "content" && nul === -1) {
      separatorPending = shownAny;
      return;
    }
    const path = nul === -1 ? line : line.slice(0, nul);
    if (path !== lastPath) {
      lastPath = path;
      lastHidden = hidden(resolve(cwd, path));
    }
    if (lastHidden) {
      return;
    }
    if (separatorPending) {
      sink.add("--");
      separatorPending = false;
    }
    shownAny = true;
    // A line past the limits is only counted: it goes on as ripgrep printed it, not rebuilt.
    sink.add(nul === -1 || sink.full ? line : joinFields(options, path, line.slice(nul + 1)));
  };
}

/** `path` and the rest of its line as ripgrep prints them without `--null`. */
function joinFields(options: GrepOptions, path: string, rest: string): string {
  if (options.outputMode !== "content") {
    return `${path}:${rest}`;
  }
  const numbered = /^(\d+)([:-])/.exec(rest);
  if (numbered === null) {
    return `${path}:${rest}`;
  }
  const [prefix = "", , separator = ":"] = numbered;
  return options.lineNumbers
    ? `${path}${separator}${rest}`
    : `${path}${separator}${rest.slice(prefix.length)}`;
}
