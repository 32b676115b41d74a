import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, images on the SDK face as the Copilot CLI sends them (the Copilot SDK's replay
 * snapshots `session_config/vision_enabled_then_disabled_via_setmodel` and
 * `session_config/should_accept_blob_attachments`): the built-in `view` of an image answers
 * "Viewed image file successfully."; a model with vision then gets a user message "Image file at
 * path <path>" with the image, a model without vision nothing more (no note). Driven through the
 * official `@github/copilot-sdk` over the built CLI; the whole request messages are compared.
 * (The other faces keep turnloop's note and `session.warning`: test/agent, test/acp.)
 */

const setup = useCopilotClient();

/** A 1×1 PNG (the Copilot SDK suite's `PNG_1X1`). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The messages of the request after the model asked to view `path`. */
async function messagesAfterView(model: Parameters<typeof setup.client.createSession>[0]) {
  const { client, fixture } = setup;
  const path = join(fixture.cwd, "test.png");
  await writeFile(path, Buffer.from(PNG, "base64"));
  const session = await client.createSession({ onPermissionRequest: approveAll, ...model });
  const warnings: string[] = [];
  session.on("session.warning", (event) => warnings.push(event.data.message));
  fixture.model.enqueue(
    { toolCalls: [{ id: "call_v", name: "view", arguments: JSON.stringify({ path }) }] },
    { text: "A pixel." },
  );
  const first = fixture.model.requests.length;
  await session.sendAndWait({ prompt: "Describe test.png" });
  await session.disconnect();
  return { path, warnings, messages: chatBody(fixture.model.requests[first + 1]).messages };
}

/** The messages up to the view's result, the same with and without vision. */
function untilResult(path: string) {
  return [
    { role: "system", content: expect.any(String) },
    { role: "user", content: "Describe test.png" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_v",
          type: "function",
          function: { name: "view", arguments: JSON.stringify({ path }) },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_v", content: "Viewed image file successfully." },
  ];
}

describe("images of tool results", () => {
  test("with vision: the result's text, then a user message with the path and the image", async () => {
    const { path, warnings, messages } = await messagesAfterView({});
    expect({ warnings, messages }).toEqual({
      warnings: [],
      messages: [
        ...untilResult(path),
        {
          role: "user",
          content: [
            { type: "text", text: `Image file at path ${path}` },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
  });

  test("without vision: the result's text alone, no note and no image", async () => {
    const provider = {
      type: "openai" as const,
      baseUrl: `${setup.fixture.model.url}/v1`,
      apiKey: "dummy",
    };
    // gpt-4 (the first one) takes no images (src/llm/models.ts, TEXT_ONLY_MODELS).
    const { path, warnings, messages } = await messagesAfterView({ model: "gpt-4", provider });
    expect({ warnings, messages }).toEqual({ warnings: [], messages: untilResult(path) });
  });
});
