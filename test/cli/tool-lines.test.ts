import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliFixtures, test } from "../support/fixtures.js";

// What text mode says about each tool call, through the built CLI.

test.override({ git: true });

test.beforeEach(async ({ repository }) => {
  await writeFile(join(repository, "notes.txt"), "one\ntwo\nthree\n");
});

function run(cli: CliFixtures["cli"], extra: string[] = []) {
  return cli(["-p", "go", "--allow-all-tools", ...extra]);
}

function bash(id: string, command: string) {
  return { id, name: "bash", arguments: JSON.stringify({ command }) };
}

/** stderr without the closing summary, durations replaced by N. */
function toolLines(stderr: string): string[] {
  return stderr
    .trimEnd()
    .split("\n")
    .slice(0, -1)
    .map((line) => line.replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)"));
}

describe("tool lines in text mode", () => {
  test("a denial's reason is shown whole, or cut at a word", async ({ cli, model }) => {
    model.enqueue({ toolCalls: [bash("call_1", "touch x")] }, { text: "Denied." });
    const result = await cli(["-p", "go"]);
    const line = toolLines(result.stderr).find((text) => text.startsWith("✗ bash"));
    expect(line).toBe(
      "✗ bash touch x denied (N ms): Permission denied for 'bash': no terminal to ask on; rerun with --allow-tool 'bash(touch x)' or --allow-all-tools",
    );
  });

  test("a command that exits non-zero is marked failed with its exit code and its last lines", async ({
    cli,
    model,
  }) => {
    const script = "for i in 1 2 3 4 5 6 7; do echo line $i; done; exit 3";
    model.enqueue(
      { toolCalls: [bash("call_1", script), bash("call_2", "echo fine")] },
      { text: "Done." },
    );
    const result = await run(cli);
    expect(result.code).toBe(0);
    expect(toolLines(result.stderr)).toEqual([
      `✗ bash ${script} failed (exit code 3) (N ms)`,
      "    … 2 more lines (--verbose shows all)",
      "    line 3",
      "    line 4",
      "    line 5",
      "    line 6",
      "    line 7",
      "✓ bash echo fine (N ms)",
    ]);
  });

  test("one line left out is counted as one line", async ({ cli, model }) => {
    const script = "seq 1 6; exit 2";
    model.enqueue({ toolCalls: [bash("call_1", script)] }, { text: "Done." });
    const result = await run(cli);
    expect(toolLines(result.stderr)).toEqual([
      `✗ bash ${script} failed (exit code 2) (N ms)`,
      "    … 1 more line (--verbose shows all)",
      ...[2, 3, 4, 5, 6].map((line) => `    ${line}`),
    ]);
  });

  test("--verbose shows every line of the failed command", async ({ cli, model }) => {
    model.enqueue({ toolCalls: [bash("call_1", "seq 1 8; exit 1")] }, { text: "Done." });
    const result = await run(cli, ["--verbose"]);
    expect(toolLines(result.stderr)).toEqual([
      "✗ bash seq 1 8; exit 1 failed (exit code 1) (N ms)",
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((line) => `    ${line}`),
    ]);
  });

  test("edits and creates show the path and +added −removed lines; the narration is progress on stderr, the answer alone on stdout", async ({
    cli,
    model,
  }) => {
    model.enqueue(
      {
        text: "Updating the notes.",
        toolCalls: [
          {
            id: "call_1",
            name: "edit",
            arguments: JSON.stringify({
              path: "notes.txt",
              old_str: "two\n",
              new_str: "2\nzwei\n",
            }),
          },
          {
            id: "call_2",
            name: "create",
            arguments: JSON.stringify({ path: "docs/new.md", file_text: "# New\n\ntext\n" }),
          },
        ],
      },
      { text: "Both done." },
    );
    const result = await run(cli);
    expect(result.code).toBe(0);
    expect(toolLines(result.stderr)).toEqual([
      "Updating the notes.",
      "✓ edit notes.txt +2 −1 (N ms)",
      "✓ create docs/new.md +3 (N ms)",
    ]);
    expect(result.stdout).toBe("Both done.\n");
  });
  // A trial of session 17's build (round 3, session 18, #5): a file created empty showed a diff
  // with an empty hunk (`@@ -0,0 +0,0 @@`) or `+0`; every face now says it is empty.
  test("a file created empty says so", async ({ cli, model }) => {
    model.enqueue(
      {
        toolCalls: [
          {
            id: "call_1",
            name: "create",
            arguments: JSON.stringify({ path: "empty.txt", file_text: "" }),
          },
        ],
      },
      { text: "Created." },
    );
    const result = await run(cli);
    expect(result.code).toBe(0);
    expect(toolLines(result.stderr)).toEqual(["✓ create empty.txt (empty file) (N ms)"]);
  });
});

describe("a failed call's line says why, whatever failed", () => {
  test("a timed-out command, a timeout past the limit, a missing file, a failed edit, an unknown tool", async ({
    cli,
    model,
    repository,
  }) => {
    const call = (id: string, name: string, input: Record<string, unknown>) => ({
      id,
      name,
      arguments: JSON.stringify(input),
    });
    model.enqueue(
      {
        toolCalls: [
          call("call_1", "bash", { command: "echo before; sleep 30", timeout: 1 }),
          call("call_2", "bash", { command: "echo never", timeout: 9999 }),
          call("call_3", "view", { path: "missing.txt" }),
          call("call_4", "edit", { path: "notes.txt", old_str: "absent", new_str: "x" }),
          call("call_5", "no_such_tool", { a: 1 }),
        ],
      },
      { text: "Done." },
    );
    const result = await run(cli);
    expect(result.code).toBe(0);
    expect(toolLines(result.stderr.replaceAll(repository, "<repository>"))).toEqual([
      "✗ bash echo before; sleep 30 timed out after 1 s (N ms)",
      "    before",
      '✗ bash echo never invalid arguments (N ms): Invalid arguments for \'bash\': ✖ Too big: expected number to be <=600 → at timeout (received {"command":"echo never","timeout":9999}).',
      "✗ view missing.txt failed (N ms): Path missing.txt does not exist. Please provide a valid path.",
      "✗ edit notes.txt failed (N ms): old_str was not found in <repository>/notes.txt; the file was not changed. View the file and copy the text exactly.",
      "✗ no_such_tool a=1 unknown tool (N ms): Tool 'no_such_tool' does not exist. Available tools that can be called are view, create, edit, grep, glob, bash, update_plan.",
    ]);
    // The model hears the same reason for the timeout it asked for past the limit.
    expect(JSON.stringify(model.requests[1]?.body)).toContain(
      "Too big: expected number to be <=600",
    );
  });
});
