import { existsSync } from "node:fs";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { unsavedResult } from "../support/storage-refusals.js";

/**
 * A turnloop home below `/proc`, where a new folder gets `ENOENT` although its parent exists: Node's
 * recursive `mkdir` never returns there, so `-p` spun at full CPU, printed nothing and ignored
 * SIGTERM (a trial, round 3 session 26). Every folder turnloop makes goes through
 * events/errors.ts `makeFolders`, which ends. `ulimit -t` (CPU seconds) ends a spinning run,
 * so the test fails instead of waiting.
 */

const HOME = "/proc/turnloop-no-such-home";
const CPU_LIMIT = "ulimit -t 30";

describe.runIf(existsSync("/proc/self"))("a turnloop home that cannot be made (/proc)", () => {
  test("-p --output-format json: exit 1 at once, the storage error in the JSON result, no request", async ({
    cli,
    model,
  }) => {
    const result = await cli(["-p", "hi", "--output-format", "json"], {
      env: { TURNLOOP_HOME: HOME },
      prefix: CPU_LIMIT,
    });
    const refusal =
      `${HOME}/session-state/<id> could not be written ` +
      `(ENOENT: /proc exists but takes no new folder, mkdir '${HOME}'): ` +
      "the prompt was stopped; the session was not saved";
    const sessionFolder = /session-state\/[0-9a-f-]{36}/g;
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout.replaceAll(sessionFolder, "session-state/<id>"))).toEqual({
      ...unsavedResult(refusal),
      duration_ms: expect.any(Number),
    });
    expect(result.stderr.replaceAll(sessionFolder, "session-state/<id>")).toBe(
      `turnloop: ${refusal}\n`,
    );
    expect(model.requests).toHaveLength(0);
  });

  test("the create tool asked for a file below /proc: an error result, and the prompt ends", async ({
    cli,
    model,
  }) => {
    const path = "/proc/turnloop-no-such-folder/notes.txt";
    model.enqueue(
      {
        toolCalls: [
          { id: "call_1", name: "create", arguments: JSON.stringify({ path, file_text: "x" }) },
        ],
      },
      { text: "Could not." },
    );
    const result = await cli(["-p", "write it", "--allow-all-tools"], { prefix: CPU_LIMIT });
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: "Could not.\n",
    });
    const toolMessage = chatMessages(model, 1).find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain(
      "ENOENT: /proc exists but takes no new folder, mkdir '/proc/turnloop-no-such-folder'",
    );
  });
});
