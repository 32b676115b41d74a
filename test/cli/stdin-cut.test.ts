import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 39 (F2): 50 MB piped into `-p` was cut to its first and last 50 KiB
// (README, "stdin") with nothing on stderr, and the cut fell mid-line on both sides. The person
// is now told on stderr (also with --quiet and the JSON formats), and the model gets whole lines.

test.override({ git: true });

/** Lines of 60 bytes: 50 KiB (51 200 bytes) holds 853 of them and 20 bytes of the next. */
const LINE_COUNT = 5000;
const LINES = Array.from(
  { length: LINE_COUNT },
  (_, index) =>
    `${String(index).padStart(6, "0")} ERROR something failed at module foo line 42 (again)\n`,
);
const PIPED = LINES.join("");
const WHOLE_LINES_AT_EACH_END = 853;
const KEPT = 2 * WHOLE_LINES_AT_EACH_END * 60;

const WARNING =
  `turnloop: warning: stdin had ${PIPED.length} bytes; only its first and last lines, ${KEPT} ` +
  `bytes (50 KiB at most at each end), were sent: the ${PIPED.length - KEPT} bytes between them were cut\n`;

describe("-p with more than 100 KiB piped in", () => {
  test.for([["text"], ["--quiet"], ["--output-format", "json"]])(
    "%s: stderr says how much was sent and cut; the model gets whole lines at each end",
    async (flags, { cli, model }) => {
      expect(LINES[0]).toHaveLength(60);
      // Usage as large as what was sent: a smaller count is warned of as a cut prompt.
      model.enqueue({ text: "ok", usage: { input: 30_000, output: 5 } });
      const result = await cli(["-p", "summarise", ...flags.filter((flag) => flag !== "text")], {
        stdin: PIPED,
      });
      expect(result.code).toBe(0);
      expect(result.stderr.startsWith(WARNING), result.stderr).toBe(true);
      if (flags[0] !== "text") {
        expect(result.stderr).toBe(WARNING);
      }
      const sent = chatMessages(model, 0).filter((message) => message.role === "user");
      expect(String(sent.at(-1)?.content)).toBe(
        `summarise\n\n<attachment source="stdin" bytes="${PIPED.length}">\n` +
          LINES.slice(0, WHOLE_LINES_AT_EACH_END).join("") +
          `[… ${PIPED.length - KEPT} bytes of the piped input cut here; it had ${PIPED.length} bytes …]\n` +
          LINES.slice(LINE_COUNT - WHOLE_LINES_AT_EACH_END).join("") +
          "</attachment>",
      );
    },
  );

  test("100 KiB or less: sent whole, and only how much was read is said (trial 47 F4)", async ({
    cli,
    model,
  }) => {
    // Usage as large as what was sent: a smaller count is warned of as a cut prompt.
    model.enqueue({ text: "ok", usage: { input: 30_000, output: 5 } });
    const piped = LINES.slice(0, 1700).join("");
    const result = await cli(["-p", "summarise", "--quiet"], { stdin: piped });
    expect([result.code, result.stderr, result.stdout]).toEqual([
      0,
      `turnloop: read ${Buffer.byteLength(piped)} bytes from stdin as an attachment to the prompt; use </dev/null to give none\n`,
      "ok\n",
    ]);
  });
});
