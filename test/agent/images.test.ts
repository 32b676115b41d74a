import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { viewTool } from "../../src/tools/index.js";
import { type CliFixtures, test } from "../support/fixtures.js";

const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

async function viewImage(
  openHarness: CliFixtures["openHarness"],
  wire: "anthropic" | "openai-chat" | "openai-responses",
): Promise<string> {
  const harness = await openHarness({ wire, tools: [viewTool] });
  await writeFile(join(harness.cwd, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
  harness.server.enqueue(
    { toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"pixel.png"}' }] },
    { text: "A single pixel." },
  );
  expect(await harness.prompt("what is in pixel.png?")).toEqual({ stopReason: "end_turn" });
  expect(harness.server.requests.map((request) => request.status)).toEqual([200, 200]);
  return JSON.stringify(harness.server.requests[1]?.body);
}

test("view attaches an image to the tool result for Anthropic", async ({ openHarness }) => {
  const body = await viewImage(openHarness, "anthropic");
  expect(body).toContain(
    `"type":"image","source":{"type":"base64","media_type":"image/png","data":"${PIXEL_PNG}"}`,
  );
  expect(body).toContain("Image file pixel.png (image/png, 70 bytes), attached.");
});

test("view attaches an image to the tool result for the Responses API", async ({ openHarness }) => {
  const body = await viewImage(openHarness, "openai-responses");
  expect(body).toContain(`data:image/png;base64,${PIXEL_PNG}`);
});

test("Chat Completions gets a note instead of base64 text", async ({ openHarness }) => {
  const body = await viewImage(openHarness, "openai-chat");
  expect(body).not.toContain(PIXEL_PNG);
  expect(body).toContain("this model's API does not take images in tool results");
});
