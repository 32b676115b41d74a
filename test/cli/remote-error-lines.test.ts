import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// A remote error's message reaches stderr without its terminal control sequences in every mode,
// as text mode's renderer writes it (README, "Text from elsewhere on your terminal": "remote error
// messages"; trial 47 F3: `--output-format json` wrote an OSC 52 clipboard write to stderr raw).

/** A provider's 400 whose message writes the clipboard (OSC 52, BEL-ended) and sets a colour. */
const HOSTILE_ERROR = {
  status: 400,
  body: { error: { message: "bad \u001b]52;c;aGk=\u0007request \u001b[31mred" } },
};
const NO_RETRIES = { env: { TURNLOOP_MAX_RETRIES: "0" } };

describe("a remote error on stderr without its control sequences", () => {
  for (const format of ["json", "stream-json"]) {
    test(`--output-format ${format}`, async ({ cli, model }) => {
      model.enqueue(HOSTILE_ERROR);
      const result = await cli(["-p", "go", "--output-format", format], NO_RETRIES);
      expect(result.code).toBe(1);
      // A bad request is not kept to resend: the error is the whole of stderr.
      expect(result.stderr).toBe("turnloop: HTTP 400: bad request red\n");
    });
  }

  test("sessions compact", async ({ cli, model }) => {
    // The summary request is sent twice before compaction gives up.
    model.enqueue({ text: "one" }, { text: "two" }, HOSTILE_ERROR, HOSTILE_ERROR);
    const first = await cli(["-p", "first"]);
    const id = printedSessionId(first.stderr);
    await cli(["-p", "second", "--resume", id]);
    const compacted = await cli(["sessions", "compact", id], NO_RETRIES);
    expect(compacted).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "turnloop: compaction failed: the summary request failed twice: HTTP 400: bad request red\n",
    });
  });
});
