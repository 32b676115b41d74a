import { expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial 24, findings 4 and 9: after `--resume --model other`, `sessions --json` and the `show`
// header named the first model though a resume uses the last, and `show` printed a 5 MB prompt
// whole while it folds tool results.

test("the listing and show name the model a resume uses, and show marks the switch", async ({
  cli,
  model,
}) => {
  model.enqueue({ text: "one" }, { text: "two" });
  const sessionId = printedSessionId((await cli(["-p", "first"])).stderr);
  const other = "openai-compatible:other-model";
  const switched = await cli(["-p", "second", "--resume", sessionId, "--model", other]);
  expect(switched.code, switched.stderr).toBe(0);

  const listed = JSON.parse((await cli(["sessions", "--json"])).stdout);
  expect(listed.map((session: { model: string }) => session.model)).toEqual([other]);
  const shown = (await cli(["sessions", "show", sessionId])).stdout.split("\n");
  expect(shown[0]).toMatch(
    new RegExp(`^session ${sessionId} · ${other} \\(started on openai-compatible:fake-model\\) · `),
  );
  expect(shown.filter((line) => line.startsWith("model: "))).toEqual([
    `model: openai-compatible:fake-model → ${other}`,
  ]);
});

test("show folds a long prompt, saying how much it left out and where to see it", async ({
  cli,
  model,
}) => {
  model.enqueue({ text: "read" });
  const prompt = Array.from({ length: 30_000 }, (_, index) => `line ${index}`).join("\n");
  const sessionId = printedSessionId((await cli(["-p", "-"], { stdin: prompt })).stderr);
  const shown = (await cli(["sessions", "show", sessionId])).stdout.split("\n");
  const promptLines = shown.filter((line) => line.startsWith(">"));
  expect(promptLines).toEqual([
    ...Array.from({ length: 20 }, (_, index) => `> line ${index}`),
    `> … ${prompt.length - prompt.indexOf("line 20") + 1} more characters, 29980 more lines (sessions export --format markdown shows the whole prompt)`,
  ]);
});
