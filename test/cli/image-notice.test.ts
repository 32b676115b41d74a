import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

/**
 * Issue 27 item 5: an image the model does not take is never dropped silently. On the Chat
 * Completions wire a tool result cannot carry an image, so `view` of a PNG reaches the model as a
 * note, and `turnloop -p` tells the user so.
 */

const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

test("-p: view of an image on a wire whose tool results take no images prints a warning", async ({
  cli,
  model,
  repository,
}) => {
  await writeFile(join(repository, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
  model.enqueue(
    { toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"pixel.png"}' }] },
    { text: "Something small." },
  );
  const result = await cli(["-p", "what is in pixel.png?"]);
  expect([result.code, result.stdout]).toEqual([0, "Something small.\n"]);
  expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual([
    "turnloop: warning: openai-compatible:fake-model takes no images in tool results: the image from view (image/png) was not sent to it; the result tells it so.",
  ]);
});
