import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import type { Reply } from "../support/fake-model-types.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";

// `-p --output-format json`: the result object's subtype and is_error for each way a prompt ends.

test.override({ git: true });

/** How a prompt ends: the model's reply, the extra flags, whether it is cancelled by Ctrl-C. */
interface Ending {
  name: string;
  replies: Reply[];
  flags?: string[];
  cancel?: true;
}

const LOOK = { id: "call_1", name: "glob", arguments: '{"pattern":"*"}' };

const ENDINGS: Ending[] = [
  { name: "end_turn", replies: [{ text: "Done." }] },
  { name: "max_tokens", replies: [{ text: "Cut", finish: "length" }] },
  { name: "refusal", replies: [{ text: "No.", finish: "content_filter" }] },
  {
    name: "max_turn_requests",
    replies: [{ toolCalls: [LOOK] }],
    flags: ["--max-turns", "1"],
  },
  // The repetition guard also stops with max_turn_requests, but no --max-turns was reached.
  {
    name: "repetition",
    replies: Array.from({ length: 5 }, (_, turn) => ({
      toolCalls: [{ ...LOOK, id: `call_${turn}` }],
    })),
  },
  {
    name: "autopilot cap",
    replies: [{ text: "Still working." }],
    flags: ["--autopilot", "--max-autopilot-continues", "0"],
  },
  {
    name: "cancelled",
    replies: [
      {
        toolCalls: [
          { id: "call_1", name: "bash", arguments: '{"command":"touch started; sleep 30"}' },
        ],
      },
    ],
    flags: ["--allow-all-tools"],
    cancel: true,
  },
  { name: "error", replies: [{ status: 400, body: { error: { message: "bad request body" } } }] },
];

describe("--output-format json: subtype and is_error", () => {
  test("each way a prompt ends has its own subtype (error_max_turns only for --max-turns); success, the one is_error false, only for a finished prompt", async ({
    cli,
    model,
    repository,
  }) => {
    const seen = [];
    for (const ending of ENDINGS) {
      model.enqueue(...ending.replies);
      const result = await cli(["-p", "go", "--output-format", "json", ...(ending.flags ?? [])], {
        ...(ending.cancel === undefined
          ? {}
          : {
              // Ctrl-C once the command runs (its marker is written), not after a guessed delay.
              onStart: (child) =>
                whenFileExists(join(repository, "started"), child, () => child.kill("SIGINT")),
            }),
      });
      const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
      seen.push({
        ending: ending.name,
        code: result.code,
        subtype: parsed.subtype,
        is_error: parsed.is_error,
        stop_reason: parsed.stop_reason,
      });
    }
    const row = (ending: string, code: number, subtype: string, stop_reason: string | null) => ({
      ending,
      code,
      subtype,
      is_error: subtype !== "success",
      stop_reason,
    });
    expect(seen).toEqual([
      row("end_turn", 0, "success", "end_turn"),
      row("max_tokens", 2, "error_max_tokens", "max_tokens"),
      row("refusal", 2, "error_refusal", "refusal"),
      row("max_turn_requests", 2, "error_max_turns", "max_turn_requests"),
      row("repetition", 2, "error_repetition", "max_turn_requests"),
      row("autopilot cap", 2, "error_max_autopilot_continues", "end_turn"),
      row("cancelled", 130, "error_cancelled", "cancelled"),
      row("error", 1, "error_during_execution", null),
    ]);
  });
});

describe("--output-format stream-json: event ids", () => {
  test("every event's id is a UUID, as the persisted events' are, streamed deltas included; no two alike", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      { text: ["Look", "ing."], toolCalls: [LOOK] },
      { text: ["The answer ", "is 42."] },
    );
    const result = await cli(["-p", "hi", "--output-format", "stream-json"]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; id?: string; ephemeral?: true });
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const shapes = events.map((event) => ({
      type: event.type,
      ephemeral: event.ephemeral === true,
      uuid: uuid.test(event.id ?? ""),
    }));
    // The result line (Claude's shape) has no event id.
    const expected = [
      ["session.start", false],
      ["user.message", false],
      ["assistant.turn_start", false],
      ["assistant.message_delta", true],
      ["assistant.message_delta", true],
      ["assistant.tool_call_start", true],
      ["assistant.message", false],
      ["assistant.usage", false],
      ["tool.execution_start", false],
      ["tool.execution_running", true],
      ["tool.execution_complete", false],
      ["assistant.turn_end", false],
      ["assistant.turn_start", false],
      ["assistant.message_delta", true],
      ["assistant.message_delta", true],
      ["assistant.message", false],
      ["assistant.usage", false],
      ["assistant.turn_end", false],
      ["session.idle", true],
    ] as const;
    expect(shapes).toEqual([
      ...expected.map(([type, ephemeral]) => ({ type, ephemeral, uuid: true })),
      { type: "result", ephemeral: false, uuid: false },
    ]);
    const ids = events.flatMap((event) => (event.id === undefined ? [] : [event.id]));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("a session another process holds (trial finding 8)", () => {
  test("-p --continue --output-format json prints the result object with error.type locked", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "first" });
    const first = await cli(["-p", "start"]);
    expect(first.code).toBe(0);
    const released = gate();
    const streaming = gate();
    model.enqueue({ text: ["held", " reply"], pause: { afterEvents: 1, until: released.opened } });
    const holder = cli(["-p", "hold it", "--continue", "--output-format", "stream-json"], {
      onStart: (child) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          // The gate: the holder's reply is streaming, so it holds the session.
          if (chunk.toString("utf8").includes('"assistant.turn_start"')) {
            streaming.open();
          }
        });
      },
    });
    await streaming.opened;
    const refused = await cli(["-p", "x", "--continue", "--output-format", "json"]);
    // Trial 41 (F7): the refusal reached stdout's object only; stderr carries a failed
    // prompt's error in both JSON formats (README, "JSON output").
    const refusedLines = await cli(["-p", "x", "--continue", "--output-format", "stream-json"]);
    released.open();
    expect((await holder).code).toBe(0);
    expect(refused.code).toBe(1);
    const result = JSON.parse(refused.stdout) as Record<string, unknown>;
    const { message } = result.error as { message: string };
    expect(refused.stderr).toBe(`turnloop: ${message}\n`);
    expect({
      code: refusedLines.code,
      stdout: refusedLines.stdout,
      stderr: refusedLines.stderr,
    }).toEqual({ code: 1, stdout: refused.stdout, stderr: `turnloop: ${message}\n` });
    expect(result).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      result: "",
      error: { type: "locked" },
    });
    expect(String((result.error as { message: string }).message)).toContain(
      "is open in another process",
    );
    expect(result.session_id).toBe(printedSessionId(first.stderr));
  });
});
