import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// Session 24's brief, item 2: an embedded resource's text was stored twice in `user.message`
// (in `content`, which the model reads, and in `contentBlocks`, the prompt as given). It is now
// stored once, and the prompt still comes back as given; older logs, which hold both, read the
// same.

const fixture = ChildFixture.forEachTest();

const FILE_TEXT = "EMBEDDED-MARKER first line\nsecond line without a newline at the end";

function givenBlocks(cwd: string): acp.ContentBlock[] {
  return [
    { type: "text", text: "Read this" },
    { type: "resource", resource: { uri: `file://${cwd}/notes.txt`, text: FILE_TEXT } },
    { type: "text", text: "and answer" },
  ];
}

function userChunks(updates: acp.SessionUpdate[]): unknown[] {
  return updates.flatMap((update) =>
    update.sessionUpdate === "user_message_chunk" ? [update.content] : [],
  );
}

test("an embedded file's text is stored once, and session/load replays the prompt as given, older logs too", async () => {
  fixture.server.enqueue({ text: "Read." });
  const first = fixture.startAgent();
  await first.initialize();
  const sessionId = await first.newSession();
  expect(await first.prompt(sessionId, givenBlocks(fixture.cwd))).toEqual({
    stopReason: "end_turn",
  });
  expect(await first.end()).toBe(0);
  const path = join(fixture.home, "session-state", sessionId, "events.jsonl");
  const log = await readFile(path, "utf8");
  const line = log.split("\n").find((text) => text.includes('"type":"user.message"')) ?? "";
  expect(line.split("EMBEDDED-MARKER")).toHaveLength(2);
  // The model got the file's text.
  const request = JSON.stringify(fixture.server.requests[0]?.body);
  expect(request.split("EMBEDDED-MARKER")).toHaveLength(2);

  const agent = await fixture.agentWithSession(sessionId);
  expect(userChunks(agent.updates(sessionId))).toEqual(givenBlocks(fixture.cwd));
  expect(await agent.end()).toBe(0);

  // A log of an earlier version keeps the text in both places: it replays the same.
  const event = JSON.parse(line) as { data: Record<string, unknown> };
  const older = JSON.stringify({
    ...event,
    data: { ...event.data, contentBlocks: givenBlocks(fixture.cwd) },
  });
  await writeFile(path, log.replace(line, older));
  const again = await fixture.agentWithSession(sessionId);
  expect(userChunks(again.updates(sessionId))).toEqual(givenBlocks(fixture.cwd));
  expect(await again.end()).toBe(0);
});
