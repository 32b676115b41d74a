import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

// Trial of round 3, session 39 (F7): a `-p` whose every edit was refused exited 0 with a JSON
// `success` and nothing to tell a CI job that no change was made. The result now carries Claude
// Code's `permission_denials` and the text summary line the count (README, "JSON output").

test.override({ git: true });

/** A reply asking for a `create` (refused: no terminal to ask on) and a denied `bash`. */
const REFUSED_CALLS = {
  toolCalls: [
    { id: "call_1", name: "create", arguments: '{"path":"notes.md","file_text":"x\\n"}' },
    { id: "call_2", name: "bash", arguments: '{"command":"rm -f a"}' },
    { id: "call_3", name: "glob", arguments: '{"pattern":"*"}' },
  ],
};

const DENIALS = [
  {
    tool_name: "create",
    tool_use_id: "call_1",
    tool_input: { path: "notes.md", file_text: "x\n" },
  },
  { tool_name: "bash", tool_use_id: "call_2", tool_input: { command: "rm -f a" } },
];

const FLAGS = ["--deny-tool", "bash"];

describe("-p: refused calls in the result", () => {
  test.for(["json", "stream-json"])(
    "%s: the result's permission_denials names each refused call; subtype and exit code stay",
    async (format, { cli, model, repository }) => {
      model.enqueue(REFUSED_CALLS, { text: "Wrote notes.md." });
      const result = await cli(["-p", "write notes", "--output-format", format, ...FLAGS]);
      const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as object;
      expect({ code: result.code, last }).toMatchObject({
        code: 0,
        last: { type: "result", subtype: "success", permission_denials: DENIALS },
      });
      expect(existsSync(join(repository, "notes.md"))).toBe(false);
    },
  );

  test("json: a prompt with no refused call has an empty permission_denials", async ({
    cli,
    model,
  }) => {
    model.enqueue({ text: "Hello." });
    const result = await cli(["-p", "hi", "--output-format", "json"]);
    expect(JSON.parse(result.stdout)).toMatchObject({ permission_denials: [] });
  });

  test("text: the summary line counts the refused calls, and says nothing when none was", async ({
    cli,
    model,
  }) => {
    model.enqueue(REFUSED_CALLS, { text: "Wrote notes.md." }, { text: "Hello." });
    const refused = await cli(["-p", "write notes", ...FLAGS]);
    const plain = await cli(["-p", "hi"]);
    const summary = (stderr: string) => stderr.trim().split("\n").at(-1) ?? "";
    expect([summary(refused.stderr), summary(plain.stderr)]).toEqual([
      `2 turns · 2 calls refused · 20 in / 10 out tokens · ${seconds(refused.stderr)} · session ${printedSessionId(refused.stderr)}`,
      `1 turn · 10 in / 5 out tokens · ${seconds(plain.stderr)} · session ${printedSessionId(plain.stderr)}`,
    ]);
  });
});

/** The elapsed time the summary line printed, as printed (`1.2 s`). */
function seconds(stderr: string): string {
  return /\d+\.\d s/.exec(stderr)?.[0] ?? "no time";
}
