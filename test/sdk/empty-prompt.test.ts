import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForFile, normalise, recordEvents, startCopilotClient } from "./support.js";

// Round 3, session 29's trial: `-p ""` refused a blank prompt (exit 64) and ACP answered -32602,
// but an SDK app's `session.send({prompt: ""})` went to the model (a billed request, a stored
// turn). The server now refuses it as the other faces do (session/prompt-attachments.ts
// `isEmptyPrompt`): -32602 naming the field, nothing stored, nothing sent, the session goes on.

const fixture = fixtureForFile();

test("an empty or blank session.send is refused with -32602, nothing stored or sent; the next prompt runs", async () => {
  const client = await startCopilotClient(fixture);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const events = recordEvents(session);
  const refusals = await Promise.allSettled([
    session.send({ prompt: "" }),
    session.send({ prompt: " \n\t " }),
  ]);
  expect(
    refusals.map((refusal) =>
      refusal.status === "rejected"
        ? { code: (refusal.reason as { code?: number }).code, message: String(refusal.reason) }
        : refusal,
    ),
  ).toEqual([
    {
      code: -32602,
      message: 'Error: session.send: prompt must hold some text (or come with attachments), not ""',
    },
    {
      code: -32602,
      message:
        'Error: session.send: prompt must hold some text (or come with attachments), not " \\n\\t "',
    },
  ]);
  expect(fixture.model.requests).toHaveLength(0);
  // Not one event was emitted for them (a refused prompt opens no turn; the log is untouched).
  expect(events).toEqual([]);
  expect((await session.getEvents()).map((event) => event.type)).toEqual(["session.start"]);

  // No text but a file attached: the file is the prompt, so it is sent.
  await writeFile(join(fixture.cwd, "notes.md"), "one\n");
  fixture.model.enqueue({ text: "It says one." }, { text: "Hello." });
  await session.sendAndWait({
    prompt: "",
    attachments: [{ type: "file", path: join(fixture.cwd, "notes.md"), displayName: "notes.md" }],
  });
  await session.sendAndWait({ prompt: "hello" });
  expect(fixture.model.requests).toHaveLength(2);
  const stored = (await session.getEvents()).map((event) => ({
    type: event.type,
    data: event.type === "user.message" ? { content: event.data.content } : {},
  }));
  expect(normalise(stored, fixture)).toEqual([
    { type: "session.start", data: {} },
    { type: "user.message", data: { content: "" } },
    { type: "assistant.turn_start", data: {} },
    { type: "assistant.message", data: {} },
    { type: "assistant.usage", data: {} },
    { type: "assistant.turn_end", data: {} },
    { type: "user.message", data: { content: "hello" } },
    { type: "assistant.turn_start", data: {} },
    { type: "assistant.message", data: {} },
    { type: "assistant.usage", data: {} },
    { type: "assistant.turn_end", data: {} },
  ]);
});
