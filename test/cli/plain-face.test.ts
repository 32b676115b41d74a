import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// The interactive face as plain lines (stdin not a terminal): what it prints, whole.

describe("the plain-line face", () => {
  test("names the session once when it opens, new or resumed, and once when it ends", async ({
    cli,
    model,
    repository,
  }) => {
    model.enqueue({ text: "Hello there." });
    const first = await cli([], { stdin: "hi\n" });
    expect(first.code).toBe(0);
    const id = printedSessionId(first.stdout);
    const banner = [
      `turnloop in ${repository}`,
      `model openai-compatible:fake-model · session ${id} · /help lists the commands`,
    ];
    expect(first.stdout.split("\n")).toEqual([
      ...banner,
      "> Hello there.",
      "> ",
      `session ${id}`,
      "",
    ]);
    const resumed = await cli(["--resume", id], { stdin: "" });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout.split("\n")).toEqual([
      ...banner,
      "> hi",
      "Hello there.",
      "[stop: end_turn]",
      "",
      expect.stringMatching(/^— resumed \d{4}-\d\d-\d\dT[\d:.]+Z$/),
      "> ",
      `session ${id}`,
      "",
    ]);
  });
});
