import { expect, test } from "vitest";
import { resolveModel } from "../../src/llm/models.js";

// Trial 44 F5: with OPENAI_BASE_URL set, an `openai-compatible:…` model was told to "set --base-url
// or TURNLOOP_BASE_URL" with no word of the variable the user had set, which only the OpenAI
// providers read (README, "Choosing a model": the table's endpoint column).
test("an openai-compatible model without an endpoint says OPENAI_BASE_URL is set but not read for it", () => {
  const model = "openai-compatible:fake";
  const resolutions = [
    resolveModel({ model, endpoints: { OPENAI_BASE_URL: "http://127.0.0.1:4801/v1" } }, {}),
    resolveModel({ model, endpoints: {} }, {}),
  ];
  expect(resolutions).toEqual([
    {
      ok: false,
      message:
        "turnloop: openai-compatible:fake needs an endpoint (e.g. http://127.0.0.1:8000/v1): set --base-url or TURNLOOP_BASE_URL (OPENAI_BASE_URL is set, but only openai: and openai-chat: models read it).",
    },
    {
      ok: false,
      message:
        "turnloop: openai-compatible:fake needs an endpoint (e.g. http://127.0.0.1:8000/v1): set --base-url or TURNLOOP_BASE_URL.",
    },
  ]);
});
