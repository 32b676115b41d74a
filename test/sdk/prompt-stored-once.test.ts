import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { fixtureForEachTest } from "./support.js";

// Session 25's "Left": an SDK prompt whose attachments made the model's text longer was stored
// twice in `user.message` (in `content`, and again as a text block in `contentBlocks`). It is now
// stored once (the block keeps its range of `content`), and every reader gives the prompt as the
// app gave it: `getMessages` (the Copilot wire's `content` and `transformedContent`), `sessions
// show`, `sessions export`, the listing's first prompt; older logs, which hold it twice, read the same.

const fixture = fixtureForEachTest();
const run = promisify(execFile);

const PROMPT = "PROMPT-MARKER: what does this file say?";

test("an SDK prompt with an attachment: its text stored once, read back as given on every reader, older logs too", async () => {
  await writeFile(join(fixture.cwd, "notes.md"), "one\ntwo\n");
  fixture.model.enqueue({ text: "It says one and two." });
  const client = await fixture.startedClient();
  const session = await client.createSession();
  await session.sendAndWait({
    prompt: PROMPT,
    attachments: [{ type: "file", path: join(fixture.cwd, "notes.md"), displayName: "notes.md" }],
  });
  const { sessionId } = session;
  const wire = async () => {
    const messages = await (await fixture.startedClient()).resumeSession(sessionId);
    const events = await messages.getMessages();
    return events.flatMap((event) => (event.type === "user.message" ? [event.data] : []));
  };
  await client.stop();

  const path = join(fixture.home, "session-state", sessionId, "events.jsonl");
  const log = await readFile(path, "utf8");
  const line = log.split("\n").find((text) => text.includes('"type":"user.message"')) ?? "";
  expect(line.split("PROMPT-MARKER")).toHaveLength(2);
  const stored = (JSON.parse(line) as { data: { content: string } }).data.content;
  expect(stored.startsWith(`${PROMPT}\n\n\n\n<tagged_files>`)).toBe(true);

  const cli = async (...args: string[]) =>
    (await run(process.execPath, [CLI_PATH, ...args], { env: fixture.env })).stdout;
  const show = () => cli("sessions", "show", sessionId);
  const exported = () => cli("sessions", "export", sessionId, "--format", "markdown");
  const listed = async () =>
    JSON.parse(
      (await run(process.execPath, [CLI_PATH, "sessions", "--json"], { env: fixture.env })).stdout,
    ) as Array<{ firstPrompt?: string }>;
  const expected = {
    content: PROMPT,
    transformedContent: stored,
    contentBlocks: [{ type: "text", text: PROMPT }],
  };
  const readers = async () => ({
    // The Copilot wire's `user.message` (reference: content, transformedContent).
    wire: (await wire()).map((data) => {
      const { content, transformedContent, contentBlocks } = data as typeof data & {
        transformedContent?: string;
      };
      return { content, transformedContent, contentBlocks };
    }),
    show: (await show()).split("\n").filter((row) => row.includes("PROMPT-MARKER")),
    exported: (await exported()).split("\n").filter((row) => row.includes("PROMPT-MARKER")),
    listed: (await listed()).map((summary) => summary.firstPrompt),
  });
  const now = await readers();
  expect(now).toEqual({
    wire: [expected],
    show: [`> ${PROMPT}`],
    exported: [`> ${PROMPT}`],
    listed: [PROMPT],
  });

  // A log of an earlier version keeps the prompt in both places: it reads the same.
  const event = JSON.parse(line) as { data: Record<string, unknown> };
  const older = JSON.stringify({
    ...event,
    data: { ...event.data, contentBlocks: [{ type: "text", text: PROMPT }] },
  });
  await writeFile(path, log.replace(line, older));
  expect(await readers()).toEqual(now);
});
