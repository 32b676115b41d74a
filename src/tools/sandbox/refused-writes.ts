import type { CommandResult } from "../command-runner.js";
import {
  type HiddenMention,
  type KeptFile,
  type LeadingEntry,
  refusedWriteLines,
} from "./protected-place-stops.js";
import type { ConfiningPolicy } from "./sandboxed-runner.js";

/*
 * The note for a sandboxed command that exited 0 although writes it tried were refused: said to
 * the model after the exit line, and shown under the call's `✓` on every face (the session
 * model's `ToolCall.note`). Loaded with the sandboxed runner, not at start.
 */

/**
 * What the kernel and common tools print when a write lands on a read-only mount (strerror, or
 * Node's `EROFS: read-only file system`), and npm's words for its cache in a read-only HOME
 * (`~/.npm`: "Log files were not written due to an error writing to the directory: …", the EROFS
 * itself only in the log it could not write).
 */
export const READ_ONLY =
  /Read-only file system|\bEROFS\b|Log files were not written due to an error writing to the directory/i;

/** Where each confining policy lets a command write (README, "Sandbox"). */
export const WRITABLE: Record<ConfiningPolicy, string> = {
  "read-only": "the read-only sandbox lets it write only its private /tmp",
  "workspace-write": "the sandbox lets it write only inside the workspace",
};

/** How many refused places a note names; the others are counted (`and 2 more`). */
export const NAMED_REFUSALS = 3;

/** Characters of a refused write's line, as printed, a note quotes at most. */
const QUOTED_LINE_LENGTH = 200;

/** What {@link refusedDespiteSuccess} reads besides the result: what the sandbox kept read-only. */
export interface KeptPlaces {
  leading?: readonly LeadingEntry[];
  configuredPlaces?: readonly KeptFile[];
  hidden?: readonly HiddenMention[];
}

/**
 * The note for a command that exited 0 although its output shows writes refused (`landed`: the
 * output with where each refused path lands, protected-place-stops.ts `withLandingPaths`; `printed`:
 * as the command printed it): each place once, in the order printed, the first
 * {@link NAMED_REFUSALS} named and the rest counted. A place the sandbox keeps read-only whatever
 * the settings (protected-place-stops.ts `protectedPlaceStop`: `git checkout -b x origin/main`
 * makes the branch, prints `error: could not write config file .git/config: Device or resource
 * busy` and exits 0 without its tracking) is named with why; any other read-only refusal by the
 * line it printed and where `policy` lets a command write. It is no
 * {@link CommandResult.sandboxLimit}: running the whole command again outside the sandbox would
 * repeat what it did; the model is told to run each missing change alone, which, failing on the
 * sandbox, is asked about (tools/bash.ts). `undefined` for any other result.
 */
export function refusedDespiteSuccess(
  result: CommandResult,
  printed: string,
  policy: ConfiningPolicy,
  kept: KeptPlaces,
): string | undefined {
  if (result.exitCode !== 0) {
    return undefined;
  }
  const reasons = refusedReasons(result.output, printed, policy, kept);
  const first = reasons[0];
  if (first === undefined) {
    return undefined;
  }
  const advice =
    "run a command that makes only that change and fails when it cannot (for git's config, `git config <key> <value>`; `git branch --set-upstream-to` exits 0 too): when the sandbox stops it, the user is asked whether to run it outside the sandbox.";
  if (reasons.length === 1) {
    return `Note: the command exited 0, but a write it tried was refused, so that change is missing: ${first}. To make it, ${advice}`;
  }
  const named = reasons.slice(0, NAMED_REFUSALS);
  const more = reasons.length - named.length;
  const rest = more === 0 ? "" : `; and ${more} more (see its output)`;
  return `Note: the command exited 0, but writes it tried were refused in ${reasons.length} places, so those changes are missing: ${named.join("; ")}${rest}. To make each, ${advice}`;
}

/** The distinct reasons of the refused writes `landed` shows, in the order printed. */
function refusedReasons(
  landed: string,
  printed: string,
  policy: ConfiningPolicy,
  kept: KeptPlaces,
): string[] {
  const printedLines = printed.split("\n");
  const refusals = refusedWriteLines(landed, kept.leading, kept.configuredPlaces, kept.hidden);
  const reasons = refusals.flatMap(({ line, reason }) => {
    if (reason !== undefined) {
      return [reason];
    }
    const text = (printedLines[line] ?? "").trim();
    const readOnly = READ_ONLY.exec(text);
    if (readOnly === null) {
      return [];
    }
    const quoted =
      text.length > QUOTED_LINE_LENGTH ? `${text.slice(0, QUOTED_LINE_LENGTH - 1)}\u2026` : text;
    return [`${WRITABLE[policy]} (${quoted})`];
  });
  return [...new Set(reasons)];
}
