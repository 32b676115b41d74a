import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";
import { agentTexts, thoughtTexts } from "./update-texts.js";

// Trial 37 F6: an image whose data is not base64 was taken, stored and sent with every later
// request of the session, which the provider then refused (HTTP 400): the session was lost. Now
// it is refused at the edge, and one a log already holds is replaced by a note.

const fixture = ChildFixture.forEachTest();

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const NOT_BASE64 = "%%%not base64%%%";

function userMessages(index: number) {
  const body = fixture.server.requests[index]?.body as {
    messages: Array<{ role: string; content: unknown }>;
  };
  return body.messages.filter((message) => message.role === "user");
}

describe("image data that is not base64", () => {
  test("is refused with -32602 naming the block, nothing is stored, and the session goes on", async () => {
    fixture.server.enqueue({ text: "Hello again." });
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    const refused = (prompt: acp.ContentBlock[]) =>
      agent.prompt(sessionId, prompt).then(
        () => "answered",
        (error: { code: number; message: string; data: unknown }) => {
          const { code, message, data } = error;
          return { code, message, data };
        },
      );
    const refusals = [
      await refused([
        { type: "text", text: "Look" },
        { type: "image", mimeType: "image/png", data: NOT_BASE64 },
      ]),
      await refused([
        { type: "text", text: "Look" },
        { type: "image", mimeType: "image/png", data: PNG },
        {
          type: "resource",
          resource: { uri: "file:///x.png", mimeType: "image/png", blob: "QUJD=" },
        },
      ]),
    ];
    const problem = (field: string, message: string) => ({
      code: -32602,
      message: `session/prompt: ${field}: ${message}`,
      data: {
        method: "session/prompt",
        problems: [
          {
            path: field.match(/\w+/g)?.map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
            message,
          },
        ],
      },
    });
    expect(refusals).toEqual([
      problem(
        "prompt[1].data",
        'is not base64: "%" at character 1 is not one of its letters (A-Z a-z 0-9 + / and = at the end)',
      ),
      problem(
        "prompt[2].resource.blob",
        'is not base64: its 5 characters are not whole groups of four padded with "=" at the end only',
      ),
    ]);
    expect(await agent.prompt(sessionId, [{ type: "text", text: "HELLO later" }])).toEqual({
      stopReason: "end_turn",
    });
    expect(agentTexts(agent.updates(sessionId))).toEqual(["Hello again."]);
    expect(fixture.server.requests).toHaveLength(1);
    expect(userMessages(0)).toEqual([{ role: "user", content: "HELLO later" }]);
    const prompts = (await fixture.persisted(sessionId)).filter(
      (event) => event.type === "user.message",
    );
    expect(prompts.map((event) => event.data)).toEqual([
      { content: "HELLO later", source: "user" },
    ]);
    expect(await agent.end()).toBe(0);
  });

  test("that a log already holds is sent as a note, and the user is told once", async () => {
    fixture.server.enqueue({ text: "A dot." });
    const first = fixture.startAgent();
    await first.initialize();
    const sessionId = await first.newSession();
    const prompt: acp.ContentBlock[] = [
      { type: "text", text: "What is this?" },
      { type: "image", mimeType: "image/png", data: PNG },
    ];
    expect(await first.prompt(sessionId, prompt)).toEqual({ stopReason: "end_turn" });
    expect(await first.end()).toBe(0);
    // As an earlier version, which took image data unchecked, wrote it.
    const log = join(fixture.home, "session-state", sessionId, "events.jsonl");
    await writeFile(log, (await readFile(log, "utf8")).replace(PNG, NOT_BASE64));

    fixture.server.enqueue({ text: "Still here." });
    fixture.server.enqueue({ text: "And now." });
    const again = await fixture.agentWithSession(sessionId);
    const before = again.updates(sessionId).length;
    for (const text of ["HELLO later", "And again"]) {
      expect(await again.prompt(sessionId, [{ type: "text", text }])).toEqual({
        stopReason: "end_turn",
      });
    }
    const updates = again.updates(sessionId).slice(before);
    expect(agentTexts(updates)).toEqual(["Still here.", "And now."]);
    expect(thoughtTexts(updates)).toEqual([
      "⚠ An image of an earlier prompt is not valid base64, which the model's API refuses: not sent; the model is told of it instead.\n",
    ]);
    const note =
      "What is this?\n\n[An image (image/png) was attached, but its data is not valid base64, so it is not shown.]";
    expect(userMessages(1)).toEqual([
      { role: "user", content: note },
      { role: "user", content: "HELLO later" },
    ]);
    expect(userMessages(2)).toEqual([
      { role: "user", content: note },
      { role: "user", content: "HELLO later" },
      { role: "user", content: "And again" },
    ]);
    expect(await again.end()).toBe(0);
  });
});
