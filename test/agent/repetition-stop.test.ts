/**
 * The repetition guard through `-p` (case 27): a model asking for the same call again, turn after
 * turn, is stopped, and the last line of stderr says so beside the stop reason (which alone,
 * `max_turn_requests`, reads as --max-turns); the same call made several times in ONE reply is a
 * single decision taken before any result was seen, not a loop: it runs, and the model goes on.
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

const viewA = (id: string) => ({ id, name: "view", arguments: JSON.stringify({ path: "a.txt" }) });

describe("-p and a model repeating a tool call", () => {
  test("twelve identical calls in one reply run, and the model is asked again", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, "a.txt"), "A\n");
    model.enqueue(
      { toolCalls: Array.from({ length: 12 }, (_, index) => viewA(`call_${index}`)) },
      { text: "It says A." },
    );
    const result = await cli(["-p", "read a.txt"]);
    expect([result.code, result.stdout]).toEqual([0, "It says A.\n"]);
    expect(result.stderr).not.toContain("stopped");
    expect(model.requests).toHaveLength(2);
  });

  test("the same call turn after turn stops at the fifth, and the last line names the repetition", async ({
    cli,
    model,
    repository,
    loggedEvents,
  }) => {
    await writeFile(join(repository, "a.txt"), "A\n");
    for (let turn = 0; turn < 8; turn++) {
      model.enqueue({ toolCalls: [viewA(`call_${turn}`)] });
    }
    const result = await cli(["-p", "read a.txt"]);
    expect(result.code).toBe(2);
    expect(model.requests).toHaveLength(5);
    const cause = "the model made the same tool call with the same result 5 turns in a row";
    // The stop line, then the summary line, last (trial 41, F15: README's order).
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.at(-2)).toBe(`turnloop: stopped: max_turn_requests: ${cause}`);
    expect(lines.at(-1)).toMatch(/^5 turns · /);
    // The log: the guard's notice inside the last turn, whose end carries the stop.
    const events = await loggedEvents(printedSessionId(result.stderr));
    expect(events.slice(-2).map((event) => [event.type, event.data])).toEqual([
      ["session.warning", { warningType: "repetition", message: `stopped: ${cause}` }],
      [
        "assistant.turn_end",
        expect.objectContaining({ status: "completed", stopReason: "max_turn_requests" }),
      ],
    ]);
  });
});
