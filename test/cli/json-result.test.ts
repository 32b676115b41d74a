import { join } from "node:path";
import { describe, expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import type { Reply } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";

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
  test("each stop reason maps to one subtype/is_error pair; success only for end_turn", async ({
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
    expect(seen).toEqual([
      { ending: "end_turn", code: 0, subtype: "success", is_error: false, stop_reason: "end_turn" },
      {
        ending: "max_tokens",
        code: 2,
        subtype: "error_during_execution",
        is_error: true,
        stop_reason: "max_tokens",
      },
      {
        ending: "refusal",
        code: 2,
        subtype: "error_during_execution",
        is_error: true,
        stop_reason: "refusal",
      },
      {
        ending: "max_turn_requests",
        code: 2,
        subtype: "error_max_turns",
        is_error: true,
        stop_reason: "max_turn_requests",
      },
      {
        ending: "cancelled",
        code: 130,
        subtype: "error_during_execution",
        is_error: true,
        stop_reason: "cancelled",
      },
      {
        ending: "error",
        code: 1,
        subtype: "error_during_execution",
        is_error: true,
        stop_reason: null,
      },
    ]);
  });
});
