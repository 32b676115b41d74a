import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Issue 11: redaction covers every file turnloop writes, not only events.jsonl. Extension point:
// when MCP results and compaction summaries land, add a reply printing the secret through each.

const SECRET_NAME = "DEPLOY_TOKEN";
const SECRET = "dpl-7f3a9c1e-5b2d4f6a8c0e";
/** Prints the secret without the command holding it, so only the output carries it. */
const PRINT_SECRET = `printf 'dpl-%s-%s\\n' 7f3a9c1e 5b2d4f6a8c0e`;

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function bash(id: string, command: string, timeout?: number) {
  return {
    id,
    name: "bash",
    arguments: JSON.stringify({ command, ...(timeout === undefined ? {} : { timeout }) }),
  };
}

test("a secret printed in short and long outputs and in a tool error is nowhere in TURNLOOP_HOME", async ({
  cli,
  model,
  home,
}) => {
  model.enqueue(
    { toolCalls: [bash("call_short", PRINT_SECRET)] },
    // Long enough to be cut: the secret sits in the omitted middle, so only the saved file has it.
    {
      toolCalls: [bash("call_long", `seq 1 40000; ${PRINT_SECRET}; seq 1 40000`)],
    },
    { toolCalls: [bash("call_error", `${PRINT_SECRET}; sleep 30`, 1)] },
    { text: "done" },
  );
  const result = await cli(["-p", "print the token", "--allow-all-tools"], {
    env: { [SECRET_NAME]: SECRET },
  });
  expect(result.code).toBe(0);
  const files = await filesUnder(home);
  const saved = files.filter((file) => file.includes("tool-outputs"));
  expect(saved).toHaveLength(1);
  for (const file of files) {
    const bytes = await readFile(file);
    expect({ file, found: bytes.includes(SECRET) }).toEqual({ file, found: false });
  }
  // The secret was really printed each time: its marker is where the output went.
  const marker = `[redacted:${SECRET_NAME}]`;
  const [savedFile = ""] = saved;
  expect((await readFile(savedFile, "utf8")).split(marker)).toHaveLength(2);
  const events = (await readFile(files.find((file) => file.endsWith("events.jsonl")) ?? "", "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  const results = events.filter((event) => event.type === "tool.execution_complete");
  expect(
    results.map((event) => [event.data.success, JSON.stringify(event.data).includes(marker)]),
  ).toEqual([
    [true, true],
    [true, false],
    [false, true],
  ]);
  expect(JSON.stringify(results[1]?.data)).toContain("bytes) omitted; full output saved to");
  // The saved output is private to the user.
  expect((await stat(savedFile)).mode & 0o777).toBe(0o600);
  expect((await stat(join(savedFile, ".."))).mode & 0o777).toBe(0o700);
}, 60_000);

test("short secrets (6 characters or more) are redacted too: a token and the README's example password", async ({
  cli,
  model,
  home,
}) => {
  // A fresh user's trial: `hunter2` and a URL's `secret` (the README's PostgreSQL example)
  // reached the model and the log; the floor was 8 characters.
  model.enqueue(
    { toolCalls: [bash("call_1", "printf 'hunt%s\\n' er2; printf 'sec%s true\\n' ret")] },
    { text: "done" },
  );
  const result = await cli(["-p", "print them", "--allow-all-tools"], {
    env: {
      OTHER_TOKEN: "hunter2",
      MIRROR_URL: "postgres://turnloop:secret@db.internal:5432/turnloop",
      USE_AUTH: "true",
    },
  });
  expect(result.code).toBe(0);
  const sent = JSON.stringify(model.requests.at(-1)?.body);
  expect(sent).toContain("[redacted:OTHER_TOKEN]");
  expect(sent).toContain("[redacted:MIRROR_URL] true");
  // The session's files (the code cache holds the word `secret` in turnloop's own code).
  const sessionFiles = await filesUnder(join(home, "session-state"));
  expect(sessionFiles.length).toBeGreaterThan(0);
  for (const file of sessionFiles) {
    const text = await readFile(file, "utf8");
    expect({ file, hunter2: text.includes("hunter2"), secret: text.includes("secret") }).toEqual({
      file,
      hunter2: false,
      secret: false,
    });
  }
});
