import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { requestMessages } from "./support.js";

const fixture = ChildFixture.forEachTest();

const call = (id: string, name: string, args: object) => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

describe("turnloop acp as a child process", () => {
  // Many prompts, two agent processes and a 5 MB line: longer than the default timeout under load
  // (over 60 s on two cores shared by a dozen busy processes).
  test("a full coding session: read, edit with permission, a command, bad input, a cancel, a reload", async () => {
    await writeFile(join(fixture.cwd, "greet.txt"), "helo world\n");
    fixture.server.enqueue(
      call("call_V", "view", { path: "greet.txt" }),
      call("call_E", "edit", { path: "greet.txt", old_str: "helo", new_str: "hello" }),
      call("call_B", "bash", { command: "cat greet.txt" }),
      { text: "Fixed the greeting." },
      { text: "That was long." },
      call("call_S", "bash", { command: "sleep 30" }),
      { text: "Welcome back." },
    );
    // A window the 5 MB prompt fits, so the prompts after it are not compacted (that is tested
    // in compaction.test.ts) and the scripted replies stay in step.
    const window = { TURNLOOP_CONTEXT_WINDOW: "2000000" };
    const agent = fixture.startAgent(window);
    await agent.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
    const sessionId = await agent.newSession();
    const prompt = (text: string) => agent.prompt(sessionId, text);
    expect(await prompt("fix the typo in greet.txt")).toEqual({ stopReason: "end_turn" });
    expect(await readFile(join(fixture.cwd, "greet.txt"), "utf8")).toBe("hello world\n");
    const asked = agent.behaviour.calls.filter(
      (entry) => entry.method === "session/request_permission",
    );
    expect(asked).toHaveLength(2);
    expect(agent.behaviour.calls.map((entry) => entry.method)).toContain("terminal/create");
    expect(requestMessages(fixture.server, 3).at(-1)?.content).toBe(
      "hello world\n<exited with exit code 0>",
    );

    // Garbage and a 5 MB line: errors for the garbage, and the agent goes on serving.
    agent.writeRaw('this is not json\n{"jsonrpc":"2.0",\n[]\n');
    const long = "z".repeat(5 * 1024 * 1024);
    expect(await prompt(long)).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(fixture.server, 4).at(-1)?.content).toBe(long);
    const parseErrors = agent
      .messages()
      .filter((message) => (message.error as { code?: number } | undefined)?.code === -32700);
    expect(parseErrors).toHaveLength(2);

    // A cancel while the command runs in the client's terminal.
    const running = prompt("wait a bit");
    // Running means: the client's terminal was attached to the call (after its permission).
    await agent.waitForUpdate(
      sessionId,
      (update) =>
        update.sessionUpdate === "tool_call_update" &&
        update.toolCallId === "call_S" &&
        (update.content ?? []).some((content) => content.type === "terminal"),
    );
    // The agent waits for the command's exit: the cancel finds the command running.
    await agent.waitUntil(
      () => agent.behaviour.calls.some((entry) => entry.method === "terminal/wait_for_exit"),
      "terminal/wait_for_exit",
    );
    await agent.client.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await running).toEqual({ stopReason: "cancelled" });

    // stdout carried nothing but JSON-RPC; closing stdin ends the agent cleanly.
    expect(agent.stdoutLines.every((line) => JSON.parse(line).jsonrpc === "2.0")).toBe(true);
    expect(await agent.end()).toBe(0);

    const again = await fixture.agentWithSession(sessionId, window);
    const statuses = again
      .updates(sessionId)
      .flatMap((update) =>
        update.sessionUpdate === "tool_call_update" ? [[update.toolCallId, update.status]] : [],
      );
    expect(statuses).toEqual([
      ["call_V", "completed"],
      ["call_E", "completed"],
      ["call_B", "completed"],
      ["call_S", "failed"],
    ]);
    const reloaded = await again.prompt(sessionId, "thanks");
    expect(reloaded).toEqual({ stopReason: "end_turn" });
    expect(fixture.server.requests.every((request) => request.status === 200)).toBe(true);
  }, 120_000);

  test("case 01 variant C: kill -9 during a command, restart, load: the call is repaired once and the next prompt is valid", async () => {
    const command = "touch running.txt; sleep 30";
    fixture.server.enqueue(call("call_S1", "bash", { command }), { text: "ok" });
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    await agent.client.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    const running = agent.client
      .request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "run sleep 30" }],
      })
      .catch((error: unknown) => error);
    // The command is running once it has written its file: the kill comes during it.
    const marker = join(fixture.cwd, "running.txt");
    await agent.waitUntil(() => existsSync(marker), "the command's running.txt");
    await agent.kill();
    expect(await running).toBeInstanceOf(Error);
    expect((await fixture.persisted(sessionId)).map((event) => event.type).at(-1)).toBe(
      "tool.execution_start",
    );

    const restarted = await fixture.agentWithSession(sessionId);
    const final = restarted
      .updates(sessionId)
      .filter((update) => update.sessionUpdate === "tool_call_update")
      .at(-1);
    expect(final).toMatchObject({
      toolCallId: "call_S1",
      status: "failed",
      content: [
        { type: "content", content: { type: "text", text: expect.stringMatching(/^Interrupted/) } },
      ],
      rawOutput: { error: "interrupted" },
    });
    const events = await fixture.persisted(sessionId);
    expect(events.map((event) => event.type).slice(-4)).toEqual([
      "tool.execution_start",
      "session.resume",
      "tool.execution_complete",
      "assistant.turn_end",
    ]);

    const answer = await restarted.prompt(sessionId, "say ok");
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(fixture.server.requests.at(-1)?.status).toBe(200);
    expect(requestMessages(fixture.server, -1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    const repairs = (await fixture.persisted(sessionId)).filter(
      (event) => event.type === "tool.execution_complete",
    );
    expect(repairs).toHaveLength(1);
    expect(await restarted.end()).toBe(0);
  });
});
