import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 25, item 1: a reply with no text, or only reasoning, printed nothing
// and exited 0 on every wire. Each face says so (one `session.warning`); `-p` exits 2. What `-p`
// makes of the warning is one path for every wire: here end to end on the OpenAI-compatible wire;
// each wire's replies ending the prompt with that warning, in its own words, are
// test/agent/empty-answer-wires.test.ts (in-process, the fake model's bytes of each wire).

test("-p: an empty answer is a warning on stderr, nothing on stdout, exit 2; json says error_empty_answer", async ({
  cli,
  model,
}) => {
  const seen = [];
  for (const reply of [{ text: "" }, { reasoning: "Thinking it over.", text: "" }]) {
    model.enqueue(reply);
    const text = await cli(["-p", "hi", "--quiet"]);
    model.enqueue(reply);
    const json = await cli(["-p", "hi", "--output-format", "json"]);
    const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
    seen.push({
      code: text.code,
      stdout: text.stdout,
      stderr: text.stderr,
      json: [json.code, parsed.subtype, parsed.is_error, parsed.stop_reason, parsed.result],
    });
  }
  const expected = (words: string) => ({
    code: 2,
    stdout: "",
    stderr: `turnloop: warning: ${words}\n`,
    json: [2, "error_empty_answer", true, "end_turn", ""],
  });
  expect(seen).toEqual([
    expected("the model returned an empty answer"),
    expected("the model returned only reasoning, no answer"),
  ]);
});
