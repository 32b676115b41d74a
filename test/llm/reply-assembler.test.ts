import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, test } from "vitest";
import { parseToolArguments, ReplyAssembler } from "../../src/llm/reply-assembler.js";

describe("parseToolArguments (cases 07, 08, 13)", () => {
  test("empty or whitespace text is {} for a finished call (no-argument tool)", () => {
    expect(parseToolArguments("", false)).toEqual({ arguments: {} });
    expect(parseToolArguments("  \n", false)).toEqual({ arguments: {} });
  });

  test("empty text of a cut-off call is truncated", () => {
    expect(parseToolArguments("", true)).toEqual({ arguments: {}, error: "truncated" });
  });

  test("a JSON object is used as is", () => {
    expect(parseToolArguments('{"command":"ls","timeout":5}', false)).toEqual({
      arguments: { command: "ls", timeout: 5 },
    });
  });

  test("a double-encoded object is unwrapped once", () => {
    expect(parseToolArguments(JSON.stringify('{"path":"a.txt"}'), false)).toEqual({
      arguments: { path: "a.txt" },
    });
    // Triple encoding is not unwrapped twice: that would be guessing.
    const triple = JSON.stringify(JSON.stringify('{"path":"a.txt"}'));
    expect(parseToolArguments(triple, false)).toEqual({ arguments: {}, error: "invalid_json" });
  });

  test.each(["[1,2]", '"hello"', "null", "42", "path=a.txt content=hi", '{"a":1}}'])(
    "%s is invalid_json",
    (raw) => {
      expect(parseToolArguments(raw, false)).toEqual({ arguments: {}, error: "invalid_json" });
    },
  );

  test.each(['{"path":', '{"path":"big.py","content":"def a', '{"a":[1,2'])(
    "%s ends before the JSON does: truncated only in a cut-off call, else invalid_json",
    (raw) => {
      expect(parseToolArguments(raw, true)).toEqual({ arguments: {}, error: "truncated" });
      expect(parseToolArguments(raw, false)).toEqual({ arguments: {}, error: "invalid_json" });
    },
  );

  test("invalid text of a cut-off call is truncated, not invalid_json", () => {
    expect(parseToolArguments("path=a.txt", true)).toEqual({ arguments: {}, error: "truncated" });
  });
});

describe("ReplyAssembler", () => {
  const usage = {
    inputTokens: { total: 120, noCache: 120, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 3, text: 3, reasoning: undefined },
  };

  function assemble(parts: LanguageModelV3StreamPart[]): ReplyAssembler {
    const assembler = new ReplyAssembler();
    for (const part of parts) {
      assembler.add(part);
    }
    return assembler;
  }

  test("a finish with a reason completes the reply", () => {
    const assembler = assemble([
      { type: "text-delta", id: "0", delta: "hi" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ]);
    expect(assembler.finished).toBe(true);
    expect(assembler.reply()).toEqual({
      reply: { content: "hi", reasoningParts: [], toolCalls: [], finishReason: "stop" },
      usage: { inputTokens: 120, outputTokens: 3 },
    });
  });

  test("a finish the server never gave a reason for (the SDK's default) is a cut-off stream", () => {
    const assembler = assemble([
      { type: "text-delta", id: "0", delta: "hal" },
      { type: "finish", finishReason: { unified: "other", raw: undefined }, usage },
    ]);
    expect(assembler.finished).toBe(false);
  });

  test("an unusual reason the server did give still completes the reply", () => {
    const assembler = assemble([
      { type: "finish", finishReason: { unified: "other", raw: "MALFORMED_FUNCTION_CALL" }, usage },
    ]);
    expect(assembler.finished).toBe(true);
  });

  test("absent usage gives no token fields at all, never zeros", () => {
    const assembler = assemble([
      {
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: {
            total: undefined,
            noCache: undefined,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
      },
    ]);
    expect(assembler.reply().usage).toEqual({});
  });
});
