import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A fresh user's trial (finding 7): a reply cut by a broken stream (no retry once text was
// shown, exit 1) was the answer on stdout in text mode and the JSON `result`, but nothing with
// --quiet. A failed prompt has no answer, as a cancelled one has none (cancelled-answer.test.ts):
// stdout carries no half answer in any mode, and text mode shows the cut reply on stderr, before
// the error.

const CUT = ["partial answer ", "that will be ", "cut"];

describe("-p whose reply is cut by a broken stream", () => {
  test.for([
    ["text", []],
    ["quiet", ["--quiet"]],
    ["json", ["--output-format", "json"]],
  ] as const)("%s: no answer on stdout", async ([mode, flags], { cli, model }) => {
    model.enqueue({ text: [...CUT], breakAfterEvents: 3, breakBy: "reset" });
    const result = await cli(["-p", "write", ...flags]);
    expect(result.code).toBe(1);
    expect(model.requests).toHaveLength(1);
    if (mode === "json") {
      expect(JSON.parse(result.stdout)).toMatchObject({
        subtype: "error_during_execution",
        is_error: true,
        result: "",
        stop_reason: null,
        error: { type: "network" },
      });
      return;
    }
    expect(result.stdout).toBe("");
    const lines = result.stderr.split("\n");
    const error = lines.findIndex((line) =>
      line.startsWith("turnloop: the model's stream broke off"),
    );
    expect(error).toBeGreaterThanOrEqual(0);
    if (mode === "text") {
      // The cut reply, on stderr just before the error line.
      expect(lines[error - 1]).toMatch(/^partial answer/);
    }
  });
});
