import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { requestMessages } from "./support.js";
import { agentTexts, thoughtTexts } from "./update-texts.js";

// Trial 37 F7: an image of a type models do not take, an audio block and an embedded binary
// resource reached the model as a note, and the editor's user was told nothing (README "Images":
// whenever an image is not sent, you are told so).

const fixture = ChildFixture.forEachTest();

const PROMPT: acp.ContentBlock[] = [
  { type: "text", text: "Look at these." },
  { type: "image", mimeType: "image/bmp", data: "Qk0=" },
  { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
  {
    type: "resource",
    resource: { uri: "file:///tmp/x.pdf", mimeType: "application/pdf", blob: "JVBERg==" },
  },
];

const NOTICE =
  "⚠ Not sent to the model: an image of type image/bmp (models take PNG, JPEG, GIF and WebP); " +
  "an audio clip (audio/wav); the binary content of /tmp/x.pdf; it was told of them instead.\n";

describe("attachments the model gets only a note of", () => {
  test("the editor's user is told, live and after session/load; the model reads the notes", async () => {
    fixture.server.enqueue({ text: "Noted." });
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, PROMPT)).toEqual({ stopReason: "end_turn" });
    // A notice of turnloop's own: a thought, never the reply (src/acp/notices.ts).
    expect(thoughtTexts(agent.updates(sessionId))).toEqual([NOTICE]);
    expect(agentTexts(agent.updates(sessionId))).toEqual(["Noted."]);
    expect(requestMessages(fixture.server, 0).at(-1)?.content).toBe(
      [
        "Look at these.",
        "[An image was attached (image/bmp, 2 bytes); its type is not one models take (PNG, JPEG, GIF, WebP), so it is not shown.]",
        "[An audio clip was attached (audio/wav, 4 bytes); audio is not passed to the model.]",
        "[Binary content of /tmp/x.pdf was attached (4 bytes, application/pdf); it is not shown to the model.]",
      ].join("\n\n"),
    );
    expect(await agent.end()).toBe(0);

    const again = await fixture.agentWithSession(sessionId);
    expect(thoughtTexts(again.updates(sessionId))).toEqual([NOTICE]);
  });
});
