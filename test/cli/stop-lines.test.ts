import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial 41 (F15): `-p` wrote `turnloop: stopped: max_tokens` (and `refusal`) after the summary
// line, which README says is last, in the wire's enum word with nothing to do about it. The stop
// line now says it in plain words with what to do, before the summary; json's stderr says the same.

const SUMMARY = /^1 turn · 10 in \/ 5 out tokens · \d+\.\d s · session [0-9a-f-]{36}$/;

describe("a prompt the model stopped before its answer was complete", () => {
  test.for([
    [
      "length",
      "turnloop: stopped: the reply reached the model's output limit (max_tokens); its text so far is kept: continue with --continue to have the model go on",
    ],
    [
      "content_filter",
      "turnloop: stopped: the provider refused to answer (refusal, its content filter); rephrase the prompt, or use another model",
    ],
  ] as const)(
    "finish_reason %s: the stop line in words, then the summary last",
    async ([finish, line], { cli, model }) => {
      model.enqueue({ text: "Cut", finish }, { text: "Cut", finish });
      const text = await cli(["-p", "hi"]);
      const lines = text.stderr.split("\n").filter((each) => each !== "");
      expect({ code: text.code, stdout: text.stdout, lines: lines.length }).toEqual({
        code: 2,
        stdout: "Cut\n",
        lines: 2,
      });
      expect(lines[0]).toBe(line);
      expect(lines[1]).toMatch(SUMMARY);
      const json = await cli(["-p", "hi", "--output-format", "json"]);
      expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 2, stderr: `${line}\n` });
    },
  );
});
