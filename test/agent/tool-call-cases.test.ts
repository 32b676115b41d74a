import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { chatDelta } from "../llm/helpers.js";
import { test } from "../support/fixtures.js";
import { chatMessages, types } from "../support/harness.js";
import { callingTools } from "../support/replies.js";
import { getTimeTool, readFileTool, writeFileTool } from "../support/test-tools.js";

const TOOLS = [readFileTool, writeFileTool, getTimeTool];

function completions(events: readonly SessionEvent[]) {
  return events.flatMap((event) => (event.type === "tool.execution_complete" ? [event.data] : []));
}

/** A reply as raw OpenAI Chat stream lines: `chunks`, then `data: [DONE]`. */
function rawReply(...chunks: string[]) {
  return { raw: [...chunks, "data: [DONE]\n\n"] };
}

/** The assistant's first streamed delta, announcing `toolCalls` (the wire's `tool_calls`). */
function announcing(toolCalls: object[], fields: object = {}): string {
  return chatDelta({ role: "assistant", ...fields, tool_calls: toolCalls });
}

describe("case 12: unknown tool", () => {
  test("gets an error result listing the real tools, and the loop goes on", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      callingTools(["u1", "execute_python", { code: "print(1)" }]),
      callingTools(["u2", "get_time", {}]),
      { text: "1" },
    );
    expect(await harness.prompt("print 1")).toEqual({ stopReason: "end_turn" });
    expect(completions(harness.events)).toEqual([
      {
        toolCallId: "u1",
        toolName: "execute_python",
        success: false,
        result: {
          content:
            "Tool 'execute_python' does not exist. Available tools that can be called are read_file, write_file, get_time.",
        },
        error: {
          message:
            "Tool 'execute_python' does not exist. Available tools that can be called are read_file, write_file, get_time.",
          code: "unknown_tool",
        },
      },
      { toolCallId: "u2", toolName: "get_time", success: true, result: { content: "12:00" } },
    ]);
    expect(chatMessages(harness, 1).at(-1)).toMatchObject({ role: "tool", tool_call_id: "u1" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
  });
});

describe("case 13: malformed arguments", () => {
  test("non-JSON and schema-invalid arguments are not executed; the model is told why", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      { toolCalls: [{ id: "m1", name: "write_file", arguments: "path=a.txt content=hi" }] },
      callingTools(["m2", "write_file", { path: 12345 }]),
      callingTools(["m3", "write_file", { path: "ok.txt", content: "fine" }]),
      { text: "done" },
    );
    expect(await harness.prompt("write the file")).toEqual({ stopReason: "end_turn" });
    const [first, second, third] = completions(harness.events);
    expect(first?.error?.code).toBe("invalid_arguments");
    // The parser's words are V8's (they differ between Node.js versions), the rest ours.
    expect(first?.result.content).toMatch(
      /^Invalid arguments for 'write_file': the arguments are not valid JSON: Unexpected token 'p'.* \(received path=a\.txt content=hi\)\.$/,
    );
    expect(second?.error?.code).toBe("invalid_arguments");
    expect(second?.result.content).toMatch(/path[\s\S]*expected string[\s\S]*content/);
    expect(third?.success).toBe(true);
    expect(existsSync(join(harness.cwd, "a.txt"))).toBe(false);
    expect(await readFile(join(harness.cwd, "ok.txt"), "utf8")).toBe("fine");
    // The invalid call is replayed with a valid JSON object, as strict servers require.
    const replayed = chatMessages(harness, 1).find((message) => message.role === "assistant") as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(replayed.tool_calls[0]?.function.arguments).toBe("{}");
  });

  test("valid JSON that is not an object is told apart from text that is not JSON", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      {
        toolCalls: [
          { id: "j1", name: "write_file", arguments: "[1,2]" },
          { id: "j2", name: "write_file", arguments: '{"path": "a.txt' },
        ],
      },
      { text: "done" },
    );
    expect(await harness.prompt("write the file")).toEqual({ stopReason: "end_turn" });
    const [array, cut] = completions(harness.events).map((each) => each.result.content);
    expect(array).toBe(
      "Invalid arguments for 'write_file': the arguments are valid JSON but an array, not a " +
        "JSON object (received [1,2]).",
    );
    expect(cut).toMatch(
      /^Invalid arguments for 'write_file': the arguments are not valid JSON: Unterminated string in JSON at position 15.* \(received \{"path": "a\.txt\)\.$/,
    );
  });

  test("a double-encoded JSON object is unwrapped once", async ({ openHarness }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      {
        toolCalls: [
          {
            id: "d1",
            name: "write_file",
            arguments: JSON.stringify('{"path":"a.txt","content":"hi"}'),
          },
        ],
      },
      { text: "done" },
    );
    expect(await harness.prompt("write")).toEqual({ stopReason: "end_turn" });
    expect(await readFile(join(harness.cwd, "a.txt"), "utf8")).toBe("hi");
  });

  test("five identical failing calls in a row stop the prompt with max_turn_requests", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    for (let index = 0; index < 10; index++) {
      harness.server.enqueue({
        toolCalls: [{ id: `r${index}`, name: "write_file", arguments: '{"path":12345}' }],
      });
    }
    const repetition = "the model made the same tool call with the same result 5 turns in a row";
    expect(await harness.prompt("write")).toEqual({ stopReason: "max_turn_requests", repetition });
    expect(harness.server.requests).toHaveLength(5);
    const results = completions(harness.events);
    expect(results).toHaveLength(5);
    expect(results[1]?.result.content).not.toContain("[turnloop:");
    expect(results[2]?.result.content).toContain("[turnloop: turn 3 in a row making this call");
    // The user is told why: the stop reason alone reads as --max-turns.
    expect(
      harness.events.filter((event) => event.type === "session.warning").map((event) => event.data),
    ).toEqual([{ warningType: "repetition", message: `stopped: ${repetition}` }]);
  });
});

describe("case 07: arguments cut off by the output limit", () => {
  const cutArguments = '{"path":"big.py","content":"def a():\\n    return 1\\n\\ndef b';
  const rawStream = (finishReason: string) => [
    announcing([
      {
        index: 0,
        id: "call_T1",
        type: "function",
        function: { name: "write_file", arguments: "" },
      },
    ]),
    chatDelta({ tool_calls: [{ index: 0, function: { arguments: cutArguments } }] }),
    chatDelta({}, finishReason),
    "data: [DONE]\n\n",
  ];

  test("is never executed and stops with max_tokens (finish_reason length)", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue({ raw: rawStream("length") }, { text: "ok" });
    expect(await harness.prompt("write big.py")).toEqual({ stopReason: "max_tokens" });
    expect(existsSync(join(harness.cwd, "big.py"))).toBe(false);
    const message = harness.events.find((event) => event.type === "assistant.message");
    expect(message?.data).toMatchObject({
      toolRequests: [
        {
          toolCallId: "call_T1",
          arguments: {},
          rawArguments: cutArguments,
          argumentsError: "truncated",
        },
      ],
    });
    expect(completions(harness.events)).toMatchObject([
      { toolCallId: "call_T1", success: false, error: { code: "truncated_arguments" } },
    ]);
    expect(harness.server.requests).toHaveLength(1);
    // The next prompt replays the cut call as `{}` with its error result; the strict server accepts it.
    expect(await harness.prompt("try again")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  // Variant B: the same unfinished JSON, but the model says it finished its tool calls (a small
  // local model, or a server that mislabels `length`). No limit was reported, so the call gets the
  // invalid-arguments result, as `{"path": x}` does, and the model is asked again once.
  test("with finish_reason tool_calls: invalid arguments, told to the model, and the prompt goes on", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue({ raw: rawStream("tool_calls") }, { text: "ok" });
    expect(await harness.prompt("write big.py")).toEqual({ stopReason: "end_turn" });
    expect(existsSync(join(harness.cwd, "big.py"))).toBe(false);
    const message = harness.events.find((event) => event.type === "assistant.message");
    expect(message?.data).toMatchObject({
      toolRequests: [
        { toolCallId: "call_T1", rawArguments: cutArguments, argumentsError: "invalid_json" },
      ],
      finishReason: "tool-calls",
    });
    expect(completions(harness.events)).toMatchObject([
      { toolCallId: "call_T1", success: false, error: { code: "invalid_arguments" } },
    ]);
    const result = chatMessages(harness, 1).at(-1) as { role: string; content: string };
    expect(result.role).toBe("tool");
    expect(result.content).toMatch(
      /^Invalid arguments for 'write_file': the arguments are not valid JSON: Unterminated string in JSON at position \d+/,
    );
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  test("anthropic max_tokens inside tool_use", async ({ openHarness }) => {
    const harness = await openHarness({ wire: "anthropic", tools: TOOLS });
    harness.server.enqueue(
      {
        toolCalls: [
          {
            id: "toolu_T1",
            name: "write_file",
            arguments: '{"path":"big.py","content":"def a():\\n',
          },
        ],
        finish: "length",
      },
      { text: "ok" },
    );
    expect(await harness.prompt("write big.py")).toEqual({ stopReason: "max_tokens" });
    expect(existsSync(join(harness.cwd, "big.py"))).toBe(false);
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
  });
});

describe("case 08: tool calls without arguments", () => {
  test.for(["openai-chat", "anthropic"] as const)(
    "empty argument text means {} (%s)",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire, tools: TOOLS });
      harness.server.enqueue(
        { toolCalls: [{ id: "n1", name: "get_time", arguments: "" }] },
        { text: "done" },
      );
      expect(await harness.prompt("go")).toEqual({ stopReason: "end_turn" });
      expect(completions(harness.events)).toEqual([
        { toolCallId: "n1", toolName: "get_time", success: true, result: { content: "12:00" } },
      ]);
      expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
    },
  );

  test("openai-compatible call with no arguments key at all", async ({ openHarness }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      rawReply(
        announcing([{ index: 0, id: "call_N3", type: "function", function: { name: "get_time" } }]),
        chatDelta({}, "tool_calls"),
      ),
      { text: "done" },
    );
    expect(await harness.prompt("go")).toEqual({ stopReason: "end_turn" });
    expect(completions(harness.events)[0]).toMatchObject({ toolCallId: "call_N3", success: true });
    const assistant = chatMessages(harness, 1).find((message) => message.role === "assistant") as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(assistant.tool_calls[0]?.function.arguments).toBe("{}");
  });
});

describe("case 09: parallel calls sharing index 0", () => {
  const call = (id: string, path: string, content: string, index: number | undefined) => ({
    ...(index === undefined ? {} : { index }),
    id,
    type: "function",
    function: { name: "write_file", arguments: JSON.stringify({ path, content }) },
  });

  test.for([
    ["Ollama: every call at index 0", 0],
    ["no index at all", undefined],
  ] as const)("%s", async ([_name, index], { openHarness }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      rawReply(
        announcing([call("call_P1", "one.txt", "1", index)], { content: "" }),
        chatDelta({ tool_calls: [call("call_P2", "two.txt", "2", index)] }),
        chatDelta({}, "tool_calls"),
      ),
      { text: "done" },
    );
    expect(await harness.prompt("write both files")).toEqual({ stopReason: "end_turn" });
    expect(
      completions(harness.events).map((result) => [result.toolCallId, result.success]),
    ).toEqual([
      ["call_P1", true],
      ["call_P2", true],
    ]);
    expect(await readFile(join(harness.cwd, "one.txt"), "utf8")).toBe("1");
    expect(await readFile(join(harness.cwd, "two.txt"), "utf8")).toBe("2");
    const messages = chatMessages(harness, 1).slice(-3);
    expect(messages.map((message) => message.role)).toEqual(["assistant", "tool", "tool"]);
    expect(messages.slice(1).map((message) => message.tool_call_id)).toEqual([
      "call_P1",
      "call_P2",
    ]);
  });

  test("a repeated terminal chunk does not run the call twice", async ({ openHarness }) => {
    const harness = await openHarness({ tools: TOOLS });
    harness.server.enqueue(
      rawReply(
        announcing([
          {
            index: 0,
            id: "call_P3",
            type: "function",
            function: { name: "get_time", arguments: "{}" },
          },
        ]),
        chatDelta({}, "tool_calls"),
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`,
      ),
      { text: "done" },
    );
    expect(await harness.prompt("time?")).toEqual({ stopReason: "end_turn" });
    expect(types(harness.events).filter((type) => type === "tool.execution_start")).toHaveLength(1);
  });
});

describe("case 16: empty replies", () => {
  test.for(["openai-chat", "anthropic"] as const)(
    "an empty reply ends the turn and is never replayed (%s)",
    async (wire, { openHarness }) => {
      const harness = await openHarness({ wire });
      harness.server.enqueue({ text: "" }, { text: "fine" });
      // The answer is empty, and says so (trial of round 3, session 25).
      expect(await harness.prompt("hi")).toEqual({ stopReason: "end_turn", emptyAnswer: true });
      expect(types(harness.events).includes("assistant.message_delta")).toBe(false);
      expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
      expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
    },
  );

  test("whitespace-only text is not replayed as an assistant message", async ({ openHarness }) => {
    const harness = await openHarness({ wire: "anthropic" });
    harness.server.enqueue({ text: "\n\n  " }, { text: "fine" });
    await harness.prompt("hi");
    expect(await harness.prompt("again")).toEqual({ stopReason: "end_turn" });
    expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  test("a tool-only turn replays without an empty text block (anthropic)", async ({
    openHarness,
  }) => {
    const harness = await openHarness({ wire: "anthropic", tools: TOOLS });
    await writeFile(join(harness.cwd, "f.txt"), "hello");
    harness.server.enqueue(callingTools(["toolu_1", "read_file", { path: "f.txt" }]), {
      text: "done",
    });
    expect(await harness.prompt("read")).toEqual({ stopReason: "end_turn" });
    const body = harness.server.requests[1]?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "f.txt" } }],
    });
  });

  test("an empty reply that did not simply stop is an error, not success", async ({
    openHarness,
  }) => {
    const harness = await openHarness();
    harness.server.enqueue(
      rawReply(
        chatDelta({ role: "assistant", content: "" }),
        chatDelta({}, "MALFORMED_FUNCTION_CALL"),
      ),
    );
    const outcome = await harness.prompt("hi");
    expect(outcome).toMatchObject({ error: { errorType: "malformed_response" } });
    expect("error" in outcome && outcome.error.message).toMatch(/malformed function call/);
  });
});
