import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial of round 3, session 39 (F9): a server's context-length rejection ("maximum context
// length is 8192 tokens") reached neither the user nor the log: the failure named only turnloop's
// own estimate of the window (4 characters a token). The server's words are kept now, and the
// window they name is the one the message gives.

const SAID =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";

describe("a server's context-length rejection", () => {
  test("-p: the error and the log keep the server's words and name its window", async ({
    cli,
    model,
    loggedEvents,
  }) => {
    model.enqueue({ status: 400, body: { error: { message: SAID } } });
    const result = await cli(["-p", "hi", "--output-format", "json"]);
    const printed = JSON.parse(result.stdout) as {
      session_id: string;
      error: { type: string; message: string };
    };
    expect({ code: result.code, type: printed.error.type }).toEqual({
      code: 1,
      type: "context_length_exceeded",
    });
    expect(printed.error.message).toMatch(
      /^The context is exhausted: the next request does not fit the context window of openai-compatible:fake-model \(8192 tokens as the server says, though \d+ are configured; --context-window or TURNLOOP_CONTEXT_WINDOW sets it\): .*\. The server said: HTTP 400: This model's maximum context length is 8192 tokens\. However, your messages resulted in 9000 tokens\.$/,
    );
    const logged = (await loggedEvents(printed.session_id)).filter(
      (event) => event.type === "session.error",
    );
    expect(logged.map((event) => event.data.message)).toEqual([printed.error.message]);
  });

  test("-p text: every line on stderr but the summary is turnloop's own, prefixed, the compaction that found nothing to compact included", async ({
    cli,
    model,
  }) => {
    model.enqueue({ status: 400, body: { error: { message: SAID } } });
    const result = await cli(["-p", "hi"]);
    const lines = result.stderr.trimEnd().split("\n");
    expect(result.code).toBe(1);
    expect(lines.slice(0, -1).filter((line) => !line.startsWith("turnloop: "))).toEqual([]);
    expect(lines[0]).toMatch(/^turnloop: nothing was compacted \(context_limit_retry\): /);
    expect(lines.at(-1)).toMatch(/^1 turn \(1 failed\) · /);
  });
});
