import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { agentTexts, thoughtTexts } from "./update-texts.js";

// Issue 17: image blocks (and images inside embedded resources) reach the model as image input on
// the wires that take images, and as a note on those that do not; over the built CLI.

const fixture = ChildFixture.forEachTest();

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

const PROMPT: acp.ContentBlock[] = [
  { type: "text", text: "What is in these pictures?" },
  { type: "image", mimeType: "image/png", data: PNG, uri: "file:///tmp/shot.png" },
  {
    type: "resource",
    resource: { uri: "file:///tmp/logo.gif", mimeType: "image/gif", blob: GIF },
  },
];

async function promptWithImages(env: NodeJS.ProcessEnv) {
  fixture.server.enqueue({ text: "A dot and a logo." });
  const agent = fixture.startAgent(env);
  const answer = await agent.client.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientInfo: { name: "image-test", version: "1.0.0" },
  });
  expect(answer.agentCapabilities?.promptCapabilities).toEqual({
    image: true,
    audio: false,
    embeddedContext: true,
  });
  const sessionId = await agent.newSession();
  expect(await agent.prompt(sessionId, PROMPT)).toEqual({ stopReason: "end_turn" });
  const updates = agent.updates(sessionId).map((update) => update.sessionUpdate);
  expect(updates).toEqual([
    "available_commands_update",
    "session_info_update",
    "agent_message_chunk",
    "usage_update",
  ]);
  const persisted = await fixture.persisted(sessionId);
  expect(persisted.find((event) => event.type === "user.message")?.data).toEqual({
    content: "What is in these pictures?",
    source: "user",
    images: [
      { mimeType: "image/png", data: PNG, uri: "file:///tmp/shot.png" },
      { mimeType: "image/gif", data: GIF, uri: "file:///tmp/logo.gif" },
    ],
  });
  const request = fixture.server.requests[0];
  expect(request?.status).toBe(200);
  expect(await agent.end()).toBe(0);

  // session/load shows the prompt again, images included.
  const again = await fixture.agentWithSession(sessionId, env);
  const replayed = again
    .updates(sessionId)
    .filter((update) => update.sessionUpdate === "user_message_chunk")
    .map((update) => ({ ...update, messageId: "<id>" }));
  expect(replayed).toEqual([
    { sessionUpdate: "user_message_chunk", content: PROMPT[0], messageId: "<id>" },
    {
      sessionUpdate: "user_message_chunk",
      content: { type: "image", mimeType: "image/png", data: PNG, uri: "file:///tmp/shot.png" },
      messageId: "<id>",
    },
    {
      sessionUpdate: "user_message_chunk",
      content: { type: "image", mimeType: "image/gif", data: GIF, uri: "file:///tmp/logo.gif" },
      messageId: "<id>",
    },
  ]);
  return request?.body as Record<string, unknown>;
}

describe("images in ACP prompts", () => {
  test("on the Anthropic wire: image blocks after the text", async () => {
    const body = await promptWithImages({
      TURNLOOP_MODEL: "anthropic:claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "sk-ant-test",
    });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these pictures?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          {
            type: "image",
            source: { type: "base64", media_type: "image/gif", data: GIF },
            // The request's last block: its prompt-cache breakpoint (llm/cache-breakpoints.ts).
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  test("on the Responses wire: input_image parts after the text", async () => {
    const body = await promptWithImages({
      TURNLOOP_MODEL: "openai:gpt-5",
      OPENAI_API_KEY: "sk-test",
    });
    const input = body.input as Array<Record<string, unknown>>;
    expect(input.filter((item) => item.role === "user")).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "What is in these pictures?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
          { type: "input_image", image_url: `data:image/gif;base64,${GIF}` },
        ],
      },
    ]);
  });

  test("on the Chat Completions wire: OpenAI image_url parts with data URLs (issue 27)", async () => {
    const body = await promptWithImages({});
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.filter((message) => message.role === "user")).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these pictures?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "image_url", image_url: { url: `data:image/gif;base64,${GIF}` } },
        ],
      },
    ]);
  });

  test("a model that takes no images: the client is told, and the model gets a note instead (issue 27)", async () => {
    fixture.server.enqueue({ text: "I cannot see it." });
    const agent = fixture.startAgent({ TURNLOOP_MODEL: "openai-compatible:deepseek-chat" });
    await agent.initialize();
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, PROMPT)).toEqual({ stopReason: "end_turn" });
    expect(agentTexts(agent.updates(sessionId))).toEqual(["I cannot see it."]);
    // A notice of turnloop's own: a thought, never the reply (src/acp/notices.ts).
    expect(thoughtTexts(agent.updates(sessionId))).toEqual([
      "⚠ openai-compatible:deepseek-chat takes no images: the 2 attached images (image/png, image/gif) were not sent to it; it was told of them instead.\n",
    ]);
    const body = fixture.server.requests[0]?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.messages.filter((message) => message.role === "user")).toEqual([
      {
        role: "user",
        content:
          "What is in these pictures?\n\n[2 images (image/png, image/gif) were attached but are not shown: this model's API does not take images.]",
      },
    ]);
    expect(await agent.end()).toBe(0);
  });
});
