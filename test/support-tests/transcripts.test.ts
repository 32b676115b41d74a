import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import {
  loadTranscript,
  transcriptResponder,
  transcriptsDirectory,
} from "../support/transcripts.js";
import { clientNamed, run, toolResult, user } from "./sdk-clients.js";

const directory = transcriptsDirectory();
const workdir = "/tmp/work dir";

describe.skipIf(directory === undefined)("transcript replay", () => {
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await startFakeModelServer();
    const path = join(
      directory ?? "",
      "multi_turn",
      "should_use_tool_results_from_previous_turns.yaml",
    );
    server.setResponder(transcriptResponder(loadTranscript(path, { workdir })));
  });

  afterEach(async () => {
    await server.close();
  });

  it.each(["openai-compatible", "anthropic", "openai .responses"])(
    "answers each request of a multi-turn conversation over %s",
    async (clientName) => {
      const model = clientNamed(clientName).model(server.url);
      const prompt = user("Read the file 'secret.txt' and tell me what the magic number is.");
      const first = await run(model, { messages: [prompt] });
      // two consecutive recorded assistant messages form one reply
      expect(first.toolCalls).toEqual([
        {
          toolCallId: "toolcall_0",
          toolName: "report_intent",
          input: { intent: "Reading secret file" },
        },
        { toolCallId: "toolcall_1", toolName: "view", input: { path: `${workdir}/secret.txt` } },
      ]);

      const results = [
        toolResult("toolcall_0", "report_intent", "Unknown tool."),
        toolResult("toolcall_1", "view", "1. The magic number is 42."),
      ];
      const history = [prompt, ...first.responseMessages, ...results];
      const second = await run(model, { messages: history });
      expect(second.text).toBe("The magic number is **42**.");

      const followUp = user("What is that magic number multiplied by 2?");
      const third = await run(model, {
        messages: [...history, ...second.responseMessages, followUp],
      });
      expect(third.text).toBe("The magic number (42) multiplied by 2 is **84**.");
      expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    },
  );

  it("answers 500 naming what it expected when the request matches no recording", async () => {
    const result = await run(clientNamed("anthropic").model(server.url), {
      messages: [user("Something else")],
    });
    expect(result.errors).toHaveLength(1);
    expect(server.requests[0]?.status).toBe(500);
    expect(JSON.stringify(result.errors[0])).toMatch(
      /expects user .*Read the file 'secret.txt'.*received user .*Something else/,
    );
  });

  it("answers a recorded error once, then the recorded reply", () => {
    const path = join(
      directory ?? "",
      "mode_handlers",
      "should_invoke_auto_mode_switch_handler_when_rate_limited.yaml",
    );
    const respond = transcriptResponder(loadTranscript(path, { workdir }));
    const prompt = "Explain that auto mode recovered from a rate limit in one short sentence.";
    const request: RecordedRequest = {
      wire: "openai-chat",
      path: "/v1/chat/completions",
      target: "/v1/chat/completions",
      headers: {},
      body: {
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: prompt },
        ],
      },
      receivedAt: 0,
      clientClosed: false,
      status: 200,
    };
    expect(respond(request)).toMatchObject({ status: 429, headers: { "retry-after": "1" } });
    expect(respond(request)).toEqual({
      text: "Auto mode recovered from the rate limit and the session can continue.",
    });
  });
});
