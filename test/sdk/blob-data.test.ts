import { approveAll } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Trial 37 F6: a blob attachment whose data is not base64 was taken, stored and sent with every
 * later request of the session, which the provider then refused: the session was lost. Now
 * `session.send` refuses it (`-32602` naming the attachment) and stores nothing. Driven through
 * the official `@github/copilot-sdk` over the built CLI.
 */

const setup = useCopilotClient();

describe("blob attachments whose data is not base64", () => {
  test("are refused naming the attachment; nothing is stored and the session goes on", async () => {
    const { client, fixture } = setup;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const from = fixture.model.requests.length;
    const refusals = [];
    for (const [mimeType, data] of [
      ["image/png", "%%%not base64%%%"],
      ["application/pdf", "QUJD="],
    ] as const) {
      refusals.push(
        await session
          .send({ prompt: "Look", attachments: [{ type: "blob", data, mimeType }] })
          .then(
            () => "sent",
            (error: Error) => error.message,
          ),
      );
    }
    const rule =
      'base64 (the letters A-Z a-z 0-9 + / in groups of four, "=" padding at the end only)';
    expect(refusals).toEqual([
      expect.stringContaining(
        `session.send: attachments[0].data must be ${rule}, not "%%%not base64%%%"`,
      ),
      expect.stringContaining(`session.send: attachments[0].data must be ${rule}, not "QUJD="`),
    ]);
    fixture.model.enqueue({ text: "Hello again." });
    const answer = await session.sendAndWait({ prompt: "HELLO later" });
    expect(answer?.data.content).toBe("Hello again.");
    expect(fixture.model.requests.length - from).toBe(1);
    const user = chatBody(fixture.model.requests[from]).messages.filter(
      (each) => each.role === "user",
    );
    expect(user).toEqual([{ role: "user", content: "HELLO later" }]);
    const stored = (await session.getEvents()).filter((event) => event.type === "user.message");
    expect(stored.map((event) => event.data.content)).toEqual(["HELLO later"]);
    await session.disconnect();
  });
});
