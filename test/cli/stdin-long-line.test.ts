/**
 * A trial of round 3, session 43 (F3): one line of 3 000 000 bytes piped into `-p` reached the
 * model as two 51 200-byte pieces of that line, while README and the warning spoke of whole lines
 * ("only its first and last lines … were sent"). An end with no line end to cut at is cut inside
 * its line; the warning now says so, and says whole lines only when both ends are.
 */

import { Readable } from "node:stream";
import { describe, expect, test } from "vitest";
import { readStdin } from "../../src/cli/prompt-input.js";
import {
  cutStdinAttachment,
  STDIN_MAX_BYTES,
  stdinCutWarning,
  withStdinAttachment,
} from "../../src/cli/stdin-attachment.js";

const HALF = STDIN_MAX_BYTES / 2;

/** The warning and the cut of `piped` as `-p` reads it (the ends kept as it streams by). */
async function piped(text: string): Promise<{ warning: string; cut: unknown }> {
  const ends = await readStdin(Readable.from([Buffer.from(text)]), undefined, HALF);
  if (ends === undefined) {
    throw new Error("stdin was not read");
  }
  const attached = cutStdinAttachment("summarise", ends);
  if (!attached.ok || attached.cut === undefined) {
    throw new Error("stdin was not cut");
  }
  return { warning: stdinCutWarning(attached.cut), cut: attached.cut };
}

describe("stdin past 100 KiB", () => {
  test("one long line: the warning says it was cut inside, as the model's text shows", async () => {
    const line = `${"x".repeat(3_000_000)}\n`;
    expect(await piped(line)).toEqual({
      warning:
        "turnloop: warning: stdin had 3000001 bytes; only 102400 bytes of its ends were sent " +
        "(50 KiB at most at each end; a line longer than that is cut inside): " +
        "the 2897601 bytes between them were cut",
      cut: { total: 3_000_001, kept: 2 * HALF, wholeLines: false },
    });
    const whole = withStdinAttachment("summarise", line);
    expect(whole.ok && whole.cut).toEqual({ total: 3_000_001, kept: 2 * HALF, wholeLines: false });
  });

  test("a long line at one end only: still not whole lines", async () => {
    const text = `${"a".repeat(60_000)}\n${"short line\n".repeat(10_000)}`;
    const { cut } = await piped(text);
    expect(cut).toEqual({ total: text.length, kept: HALF + 51_194, wholeLines: false });
  });

  test("short lines: whole lines at both ends, as before", async () => {
    const text = "0123456789 line\n".repeat(10_000);
    expect(await piped(text)).toEqual({
      warning:
        "turnloop: warning: stdin had 160000 bytes; only its first and last lines, 102384 bytes " +
        "(50 KiB at most at each end), were sent: the 57616 bytes between them were cut",
      // The last 50 KiB start at a line start: the tail keeps the lines after its first line feed.
      cut: { total: 160_000, kept: 102_384, wholeLines: true },
    });
  });
});
