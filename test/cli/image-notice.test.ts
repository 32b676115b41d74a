import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";

/**
 * Issue 27 item 5: an image the model does not take is never dropped silently. On the Chat
 * Completions wire a tool result cannot carry an image, so `view` of a PNG reaches the model as a
 * note, and `turnloop -p` tells the user so.
 */

const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let server: FakeModelServer;
let home: string;
let workspace: string;

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-image-notice-home-"));
  workspace = await mkdtemp(join(tmpdir(), "turnloop-image-notice-workspace-"));
  await writeFile(join(workspace, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
});

afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

test("-p: view of an image on a wire whose tool results take no images prints a warning", async () => {
  server.enqueue(
    { toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"pixel.png"}' }] },
    { text: "Something small." },
  );
  const result = await runCli(["-p", "what is in pixel.png?"], {
    cwd: workspace,
    env: cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    }),
  });
  expect([result.code, result.stdout]).toEqual([0, "Something small.\n"]);
  expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual([
    "warning: openai-compatible:fake-model takes no images in tool results: the image from view (image/png) was not sent to it; the result tells it so.",
  ]);
});
