import { describe, expect, test } from "vitest";
import { gate } from "../support/gate.js";
import { ChildFixture } from "./child-process.js";
import { initializedAgent, requestLine, textPrompt } from "./raw-lines.js";

// Session 19's brief, #5: an editor that sends `session/cancel` and then, at once, `session/load`
// of the same session (or a new `session/prompt`) had them refused while the cancelled prompt was
// ending, with a wording that told it to send the session/cancel it had just sent, and their
// answers came before the cancelled prompt's. Requests about the session read after the cancel
// now wait for the cancelled prompt's answer, then are served in the order they came. The first
// `session/set_mode` to `auto` probes bubblewrap (a child process) before it answers: the prompt
// read after it waited for nothing and, on a loaded machine, was answered first, run in the old
// mode (a `bwrap` that sleeps first on PATH shows it every time); it now waits for that answer.

const fixture = ChildFixture.forEachTest();

const cancelLine = (sessionId: string) =>
  `${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`;

describe("turnloop acp: requests sent right after session/cancel", () => {
  test("a load, a mode and a prompt wait for the cancelled prompt's answer and are answered in order", async () => {
    const agent = await initializedAgent(fixture);
    const created = await agent.request(2, "session/new", { cwd: fixture.cwd, mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    const release = gate();
    fixture.server.enqueue(
      {
        text: Array.from({ length: 10 }, () => "A"),
        pause: { afterEvents: 3, until: release.opened },
      },
      { text: "second answer" },
    );
    agent.write(requestLine(3, "session/prompt", { sessionId, prompt: textPrompt("first") }));
    // The prompt runs: its answer has begun to stream (a gate on the output, not on time).
    await agent.message((message) => JSON.stringify(message).includes('"agent_message_chunk"'));
    agent.write(
      cancelLine(sessionId) +
        requestLine(4, "session/load", { sessionId, cwd: fixture.cwd, mcpServers: [] }) +
        requestLine(5, "session/set_mode", { sessionId, modeId: "auto" }) +
        requestLine(6, "session/prompt", { sessionId, prompt: textPrompt("second") }),
    );
    const answers = await Promise.all([3, 4, 5, 6].map((id) => agent.answer(id)));
    release.open();
    expect(answers.map((answer) => answer.error)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(answers[0]?.result).toEqual({ stopReason: "cancelled" });
    expect(answers[3]?.result).toEqual({ stopReason: "end_turn" });
    const order = agent
      .answers()
      .map((answer) => answer.id)
      .filter((id) => [3, 4, 5, 6].includes(Number(id)));
    expect(order).toEqual([3, 4, 5, 6]);
    const events = await fixture.persisted(sessionId);
    const said = events.flatMap((event) =>
      event.type === "user.message" || event.type === "abort" || event.type === "session.resume"
        ? [event.type]
        : [],
    );
    expect(said).toEqual(["user.message", "abort", "session.resume", "user.message"]);
    expect(await agent.end()).toBe(0);
  });
});
