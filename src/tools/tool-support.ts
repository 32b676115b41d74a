import type { Stats } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { errorMessage, isMissingFileError } from "../events/errors.js";
import type { ToolContext, ToolResult } from "./define-tool.js";

/** A successful result whose `content` is `text`. */
export function textResult(text: string): ToolResult {
  return { content: text, isError: false };
}

/** A failed result the model reads as `message`. */
export function errorResult(message: string): ToolResult {
  return { content: message, isError: true };
}

/** Resolves a path the model gave: `~/…` from the home folder, else relative to `cwd` unless absolute. */
export function resolveToolPath(cwd: string, path: string): string {
  if (path === "~" || path.startsWith("~/")) {
    return join(homedir(), path.slice(1));
  }
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * The test for the files a search of the folder `root` (absolute) must leave out
 * ({@link ToolContext.hidden}), taking the absolute paths the search finds below `root`. Each is
 * judged as found and with `root`'s links resolved, so searching a link to a folder does not
 * show what the rules hide in that folder. Undefined when nothing is hidden.
 */
export async function hiddenBelow(
  context: ToolContext,
  root: string,
): Promise<((path: string) => boolean) | undefined> {
  const hidden = context.hidden;
  if (hidden === undefined) {
    return undefined;
  }
  const realRoot = await realpath(root).catch(() => root);
  return (path) => {
    if (hidden(path)) {
      return true;
    }
    const below = relative(root, path);
    return (
      realRoot !== root &&
      !below.startsWith("..") &&
      !isAbsolute(below) &&
      hidden(join(realRoot, below))
    );
  };
}

/** The exact wording Copilot CLI's tools use for a missing path (models have seen it). */
export function missingPathMessage(path: string): string {
  return `Path ${path} does not exist. Please provide a valid path.`;
}

/** `stat` that answers `undefined` when nothing is at `path` (ENOENT, ENOTDIR); other errors throw. */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (isMissingFileError(error)) {
      return undefined;
    }
    throw error;
  }
}

/** Whether `error` is the rejection of an aborted operation (from `signal` or an `AbortError`). */
function isAbortError(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === "AbortError");
}

/**
 * Runs a tool body and turns anything it throws into an error result, so a tool never throws.
 * An abort becomes `"<what> cancelled."`.
 */
export async function runGuarded(
  what: string,
  signal: AbortSignal,
  body: () => Promise<ToolResult>,
): Promise<ToolResult> {
  if (signal.aborted) {
    return errorResult(`${what} cancelled.`);
  }
  try {
    return await body();
  } catch (error) {
    if (isAbortError(error, signal)) {
      return errorResult(`${what} cancelled.`);
    }
    return errorResult(`${what} failed: ${errorMessage(error)}`);
  }
}
