import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approveAll, type MessageOptions, type SessionConfig } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { useCopilotClient } from "./extended-support.js";
import { chatBody } from "./support.js";

/**
 * Issue 25, blob and file attachments composed as the Copilot CLI composes them (the Copilot
 * SDK's `should accept blob attachments` and `should accept message attachments` tests and their
 * replay snapshots): an image blob is the prompt's image, its name a line after the prompt
 * ("Describe this image\ntest-pixel.png" and the image); a model without vision gets the text
 * alone, with no note and no `session.warning`; another blob is saved and tagged; a file is
 * tagged with its line count, or the lines of its `lineRange`. Driven through the official
 * `@github/copilot-sdk` over the built CLI; the whole user message of the request is compared.
 */

const setup = useCopilotClient();

/** A 1×1 PNG (the Copilot SDK suite's). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const PIXEL = {
  type: "blob" as const,
  data: PNG,
  mimeType: "image/png",
  displayName: "test-pixel.png",
};

/** A model without vision: gpt-4 (the first one) takes no images (src/llm/models.ts, TEXT_ONLY_MODELS). */
function withoutVision(): Partial<SessionConfig> {
  const provider = {
    type: "openai" as const,
    baseUrl: `${setup.fixture.model.url}/v1`,
    apiKey: "dummy",
  };
  return { model: "gpt-4", provider };
}

/** Sends `message` in a new session; the user message the model got and the warnings seen. */
async function sendOne(message: MessageOptions, config: Partial<SessionConfig> = {}) {
  const { client, fixture } = setup;
  const session = await client.createSession({ onPermissionRequest: approveAll, ...config });
  const warnings: string[] = [];
  session.on("session.warning", (event) => warnings.push(event.data.message));
  const from = fixture.model.requests.length;
  fixture.model.enqueue({ text: "ok" });
  await session.sendAndWait(message);
  const stored = (await session.getEvents()).filter((event) => event.type === "user.message");
  await session.disconnect();
  const messages = chatBody(fixture.model.requests[from]).messages;
  return {
    sessionId: session.sessionId,
    user: messages.filter((each) => each.role === "user"),
    warnings,
    attachments: stored.map((event) => event.data.attachments),
  };
}

describe("blob attachments", () => {
  test("an image blob with a model that has vision: the prompt, the blob's name, then the image", async () => {
    const { sessionId: _, ...sent } = await sendOne({
      prompt: "Describe this image",
      attachments: [PIXEL],
    });
    expect(sent).toEqual({
      user: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe this image\ntest-pixel.png" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
      warnings: [],
      attachments: [[PIXEL]],
    });
  });

  test("an image blob with a model without vision: the prompt and the name alone, no note, no warning", async () => {
    const { sessionId: _, ...sent } = await sendOne(
      { prompt: "What color is this pixel? Reply in one word.", attachments: [PIXEL] },
      withoutVision(),
    );
    expect(sent).toEqual({
      user: [
        {
          role: "user",
          content: "What color is this pixel? Reply in one word.\ntest-pixel.png",
        },
      ],
      warnings: [],
      attachments: [[PIXEL]],
    });
  });

  test("a blob of another type is saved in the session folder and tagged, for view", async () => {
    const pdf = "%PDF-1.4\n%%EOF\n";
    const blob = {
      type: "blob" as const,
      data: Buffer.from(pdf).toString("base64"),
      mimeType: "application/pdf",
      displayName: "citation-source.pdf",
    };
    const sent = await sendOne({ prompt: "Summarize the document", attachments: [blob] });
    const folder = join(setup.fixture.home, "session-state", sent.sessionId, "files");
    const content = String(sent.user[0]?.content);
    const saved = /\* (\S+) \(citation-source\.pdf, application\/pdf\)/.exec(content)?.[1] ?? "";
    expect(content).toBe(
      `Summarize the document\n\n\n\n<tagged_files>\n* ${saved} (citation-source.pdf, application/pdf)\n</tagged_files>`,
    );
    expect(saved.startsWith(`${folder}/attachment-`) && saved.endsWith("-0.pdf")).toBe(true);
    expect(await readFile(saved, "utf8")).toBe(pdf);
  });
});

describe("file attachments", () => {
  test("a whole file is tagged with its line count; a lineRange with its lines", async () => {
    const path = join(setup.fixture.cwd, "attached.txt");
    await writeFile(path, "This file is attached\nsecond line\nthird line\n");
    const whole = await sendOne({
      prompt: "Summarize the attached file",
      attachments: [{ type: "file", path }],
    });
    expect(whole.user).toEqual([
      {
        role: "user",
        content: `Summarize the attached file\n\n\n\n<tagged_files>\n* ${path} (3 lines)\n</tagged_files>`,
      },
    ]);
    // The Copilot SDK forwards a lineRange its attachment type does not declare.
    const ranges = [
      { start: 2, end: 2 },
      { start: 1, end: 3 },
    ].map((lineRange) => ({ type: "file", path, lineRange }) as never);
    const ranged = await sendOne({ prompt: "Read these lines", attachments: ranges });
    expect(ranged.user).toEqual([
      {
        role: "user",
        content: `Read these lines\n\n\n\n<tagged_files>\n* ${path} (line 2 of 3 lines)\n* ${path} (lines 1-3 of 3 lines)\n</tagged_files>`,
      },
    ]);
  });

  // Session 36: a file attachment was read whole with readFile: a FIFO kept the prompt waiting
  // for a writer for good, /dev/zero was read until no string could hold it. A file that is not a
  // regular one is tagged unreadable at once (tools/project-file.ts readProjectFile).
  test("a FIFO or /dev/zero is tagged unreadable at once, never read", async () => {
    const fifo = join(setup.fixture.cwd, "attached.fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      const sent = await sendOne({
        prompt: "Read these",
        attachments: [
          { type: "file", path: fifo },
          { type: "file", path: "/dev/zero" },
        ],
      });
      expect(sent.user).toEqual([
        {
          role: "user",
          content: `Read these\n\n\n\n<tagged_files>\n* ${fifo} (unreadable)\n* /dev/zero (unreadable)\n</tagged_files>`,
        },
      ]);
    } finally {
      await rm(fifo);
    }
  });
});
