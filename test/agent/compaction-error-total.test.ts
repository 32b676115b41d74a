import { expect } from "vitest";
import { isSummaryRequest } from "../support/context-limit.js";
import type { Reply } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { ofType } from "../support/harness.js";

// Session 26's trial (finding 10): a failed compaction's error gave two totals, "the next
// request would take about 13557 tokens. Of the about 12833 tokens, …": the first the server's
// count of the last request plus what was added since, the second our estimate of the view. The
// error now gives one figure, and its parts add up to it.

const WINDOW = 8_000;

test("a failed compaction's error names one total, and its parts add up to it", async ({
  openHarness,
}) => {
  const harness = await openHarness({ wire: "openai-chat" });
  harness.settings.contextWindow = WINDOW;
  const refused: Reply = {
    status: 400,
    body: { error: { message: "summaries are off", type: "invalid_request_error" } },
  };
  let conversation = 0;
  harness.server.setResponder((request) => {
    if (isSummaryRequest(request)) {
      return refused;
    }
    conversation += 1;
    // The server counts more tokens than turnloop estimates (its tokenizer is not ours): its
    // count of the first request fills the window.
    return conversation === 1
      ? { text: "Noted. ".repeat(200), usage: { input: WINDOW - 5, output: 10 } }
      : { text: "unexpected" };
  });
  await harness.prompt(`keep this in mind\n${"an earlier pasted log line\n".repeat(400)}`);
  const outcome = await harness.prompt("go on");
  expect(outcome).toMatchObject({ error: { errorType: "context_length_exceeded" } });
  const [error] = ofType(await harness.persisted(), "session.error");
  const message = error?.data.message ?? "";
  const match =
    /^The context is exhausted: the next request does not fit the context window of openai-compatible:fake-model \(8000 tokens; --context-window or TURNLOOP_CONTEXT_WINDOW sets it\): compaction failed \(.*\), and the next request would take about (\d+) tokens: the latest user message about (\d+), the system prompt and tool definitions about (\d+), earlier messages and summaries about (\d+)\.$/.exec(
      message,
    );
  expect(match, message).not.toBeNull();
  const [total = 0, ...parts] = (match ?? []).slice(1).map(Number);
  expect(total).toBeGreaterThanOrEqual(WINDOW);
  expect(parts.reduce((sum, part) => sum + part, 0)).toBe(total);
  expect(message.match(/about \d+ tokens/g)).toHaveLength(1);
});
