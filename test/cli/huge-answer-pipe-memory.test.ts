import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";
import { PEAK_RECORDER, peakMiB, prose, streamedInWrites } from "../support/huge-answer.js";
import { coldCodeCache } from "../support/test-home.js";

// memory30 (bench/notes/memory30.md): `-p` with its output a pipe, given 5 MB of Markdown
// streamed in 100-character deltas that the model server sends in writes of a mebibyte (so the
// CLI reads the stream 64 KiB at a time, as from a fast server), peaked here at 108–112 MiB
// before this session (976df50: the events of a whole read parsed at once, the reply's pieces
// joined twice more by the terminal renderer, and what the stream stages held across a read
// left in the old generation until the reply's end) and at 85–87 MiB after, at a load of 17 on
// 2 cores. The bound fails the old figure. The answer is whole on stdout and in the log.

const BOUND_MIB = 98;

describe("one huge answer, -p to a pipe", () => {
  test("5 MB in 100-character deltas: memory in proportion, the answer whole on stdout and in the log", async ({
    cli,
    model,
    home,
    loggedEvents,
  }) => {
    // The bound was measured from a cold start: no code cache (test/support/test-home.ts).
    await coldCodeCache(home);
    const peakFile = join(home, "peak");
    const answer = prose(5_000_000, "The last line of the answer: END.");
    model.enqueue({ raw: streamedInWrites(answer) });
    // The bin's young-generation cap (its first line; runCli starts dist/cli/main.js with node).
    const env = {
      NODE_OPTIONS: `--max-semi-space-size=2 --import ${PEAK_RECORDER}`,
      TURNLOOP_TEST_PEAK_FILE: peakFile,
    };
    const result = await cli(["-p", "one long answer"], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${answer}\n`);
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(
      events.filter((event) => event.type === "assistant.message").map((event) => event.data),
    ).toMatchObject([{ content: answer }]);
    expect(peakMiB(peakFile)).toBeLessThan(BOUND_MIB);
  }, 120_000);
});
