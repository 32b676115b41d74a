import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { readEventLog } from "../../src/session/event-log.js";
import { UNTIL_TOOL_START } from "../support/event-sequences.js";
import { chatMessages, ROLES_AFTER_ONE_TOOL_TURN } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

/** Largest file the CLI may write, in KiB (bash `ulimit -f` counts 1024-byte blocks). */
const FILE_SIZE_LIMIT_KIB = 3;

test("a log that cannot grow ends the prompt with session.error and an error exit, and keeps every written event", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue(
    {
      text: "Printing.",
      toolCalls: [
        {
          id: "call_big",
          name: "bash",
          // Its result (6000 bytes) cannot fit in the log any more.
          arguments: JSON.stringify({ command: "head -c 6000 /dev/zero | tr '\\0' a" }),
        },
      ],
    },
    { text: "never requested" },
  );
  const result = await cli(["-p", "print a lot", "--allow-all-tools"], {
    // bash `ulimit -f` counts 1024-byte blocks; a write past it fails with EFBIG, as a full disk
    // fails with ENOSPC (Node ignores SIGXFSZ).
    prefix: `ulimit -f ${FILE_SIZE_LIMIT_KIB}`,
  });
  expect(result.signal).toBe(null);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/events\.jsonl could not be written \(EFBIG/);
  // The model was asked once: the prompt stopped at the failed write.
  expect(model.requests).toHaveLength(1);

  const [sessionId] = await readdir(join(home, "session-state"));
  const path = join(home, "session-state", String(sessionId), "events.jsonl");
  expect((await stat(path)).size).toBeLessThanOrEqual(FILE_SIZE_LIMIT_KIB * 1024);
  const log = await readEventLog(path);
  // No torn or half-written line, and everything up to the tool's start is there. The turn
  // stays open: its turn_end would follow the tool's result, which could not be written.
  expect(log.repaired).toEqual([]);
  expect(log.events.map((event) => event.type)).toEqual([...UNTIL_TOOL_START, "session.error"]);
  // Trial 39 F3: the call's result reached `-p` but not the log (which later records the call
  // interrupted): its line says so, where it said ✓ alone; `sessions show` follows the log's
  // order, the call (started, no result) before the error that stopped the prompt, where the
  // error came first.
  const toolLine = result.stderr.split("\n").find((line) => line.startsWith("✓ bash"));
  expect(toolLine).toMatch(
    /^✓ bash head -c 6000 .* \([\d.]+ (?:ms|s|min)\) — its result is not in the session log: the log could not be written$/,
  );
  const shown = await cli(["sessions", "show", String(sessionId)]);
  const shownLines = shown.stdout.split("\n");
  const prompt = shownLines.indexOf("> print a lot");
  expect(shownLines.slice(prompt)).toEqual([
    "> print a lot",
    "Printing.",
    `→ bash(command: "head -c 6000 /dev/zero | tr '\\\\0' a") … no result`,
    expect.stringMatching(
      /^error \(storage\): \S+events\.jsonl could not be written \(EFBIG: file too large, write\): the prompt was stopped; every event written before is kept$/,
    ),
    "[stop: error]",
    "",
  ]);

  // Resumed without the limit, the open call gets its interrupted result and the model a valid history.
  model.enqueue({ text: "Resumed." });
  const resumed = await cli(["-p", "go on", "--resume", String(sessionId)]);
  expect(resumed.code, resumed.stderr).toBe(0);
  const messages = chatMessages(model, -1);
  expect(messages.map((message) => message.role)).toEqual(ROLES_AFTER_ONE_TOOL_TURN);
  expect(String(messages[3]?.content)).toMatch(/^Interrupted/);
});
