import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 25, item 1: a reply with no text, or only reasoning, printed nothing
// and exited 0 on every wire. Each face says so (one `session.warning`); `-p` exits 2.

const WIRES = [
  "openai-compatible:fake-model",
  "openai-chat:gpt-4.1",
  "openai:gpt-5",
  "anthropic:claude-sonnet-4-5",
];

// One test a wire: sixteen `-p` runs in one test outlasted its timeout on a loaded machine.
describe.for(WIRES)("an empty answer is said, not taken for success (%s)", (modelId) => {
  test("-p: a warning on stderr, nothing on stdout, exit 2; json says error_empty_answer", async ({
    cli,
    model,
  }) => {
    const seen = [];
    for (const reply of [{ text: "" }, { reasoning: "Thinking it over.", text: "" }]) {
      model.enqueue(reply);
      const env = { OPENAI_API_KEY: "sk-test-key", ANTHROPIC_API_KEY: "sk-test-key" };
      const base = ["--model", modelId, "--base-url", `${model.url}/v1`, "-p", "hi"];
      const text = await cli([...base, "--quiet"], { env });
      model.enqueue(reply);
      const json = await cli([...base, "--output-format", "json"], { env });
      const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
      seen.push({
        modelId,
        code: text.code,
        stdout: text.stdout,
        stderr: text.stderr,
        json: [json.code, parsed.subtype, parsed.is_error, parsed.stop_reason, parsed.result],
      });
    }
    const expected = (modelId: string, words: string) => ({
      modelId,
      code: 2,
      stdout: "",
      stderr: `turnloop: warning: ${words}\n`,
      json: [2, "error_empty_answer", true, "end_turn", ""],
    });
    expect(seen).toEqual([
      expected(modelId, "the model returned an empty answer"),
      // OpenAI's own Chat Completions wire carries no reasoning (`reasoning_content` is other
      // servers'): the reply is empty there.
      expected(
        modelId,
        modelId === "openai-chat:gpt-4.1"
          ? "the model returned an empty answer"
          : "the model returned only reasoning, no answer",
      ),
    ]);
  });
});
