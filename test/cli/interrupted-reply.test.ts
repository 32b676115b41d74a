import { describe, expect } from "vitest";
import { signalAtFirstDelta } from "../support/cli.js";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

// A new user's trial: a reply cut by Esc, Ctrl-C or SIGTERM was sent to the model on the next
// prompt as if it were a finished answer (`assistant: "one two three "`, nothing more), so the
// model could build on half a sentence it never finished. The log keeps the cut reply as shown
// (`interrupted: true`); the model's view now says so at the start of the next user message, as
// Claude Code's "[Request interrupted by user]" does, naming what cancelled it when it was not
// the user (a signal) and why when the stream broke off. A user's cancel is covered by
// interactive-queue.test.ts (Esc).

interface ChatMessage {
  role: string;
  content: unknown;
}

function messagesOf(body: unknown): ChatMessage[] {
  return (body as { messages: ChatMessage[] }).messages.filter(
    (message) => message.role !== "system",
  );
}

describe("a reply cut off mid-stream, then the next prompt", () => {
  test("cancelled by SIGTERM: the next request says it was interrupted, and by what", async ({
    cli,
    model,
  }) => {
    const signalled = gate();
    model.enqueue({
      text: ["one two ", "three ", "four"],
      pause: { afterEvents: 2, until: signalled.opened },
    });
    const first = await cli(["-p", "count", "--output-format", "stream-json"], {
      onStart: signalAtFirstDelta(),
    });
    signalled.open();
    expect(first.code).toBe(143);
    model.enqueue({ text: "five" });
    const second = await cli(["-p", "go on", "--continue"]);
    expect(second.code).toBe(0);
    const sent = messagesOf(model.requests.at(-1)?.body);
    expect(sent).toEqual([
      { role: "user", content: "count" },
      { role: "assistant", content: expect.stringMatching(/^one two /) },
      {
        role: "user",
        content:
          "[Your previous reply was interrupted before it finished: cancelled by SIGTERM.]\n\ngo on",
      },
    ]);
  });

  test("broken stream: the next request says it broke off and why", async ({ cli, model }) => {
    model.enqueue({ text: ["partial answer ", "that will be ", "cut"], breakAfterEvents: 3 });
    const first = await cli(["-p", "write"]);
    expect(first.code).toBe(1);
    model.enqueue({ text: "done" });
    const second = await cli(["-p", "try again", "--continue"]);
    expect(second.code).toBe(0);
    const sent = messagesOf(model.requests.at(-1)?.body);
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]?.content).toMatch(/^partial answer /);
    expect(sent[2]?.content).toMatch(
      /^\[Your previous reply broke off before it finished: [^\]\n]+\]\n\ntry again$/,
    );
  });

  test("a finished reply adds no note", async ({ cli, model }) => {
    model.enqueue({ text: "whole answer" });
    expect((await cli(["-p", "first"])).code).toBe(0);
    model.enqueue({ text: "second answer" });
    expect((await cli(["-p", "second", "--continue"])).code).toBe(0);
    expect(messagesOf(model.requests.at(-1)?.body)).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "whole answer" },
      { role: "user", content: "second" },
    ]);
  });
});
