import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { CLI_PATH, outputOf } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// Issue 26, figures 1b and 7c (a one-prompt run's peak RSS, ≤ 63 and ≤ 62 MiB): session 31's
// hidden places (src/permissions/hidden-places.ts) compared each of their 35 places with each
// path of a file tool's call through `path.relative`, two `path.resolve`s a comparison: a few
// hundred in one `view`, enough for V8 to mark Node's `normalizeString` hot and optimise it,
// which paged in its optimising compiler: about 4 MiB more peak RSS in both runs
// (bench/notes/rss33.md). V8's `--trace-opt` lines (on stdout, between the answer's lines) name
// each function it marks. The run is the benchmark's: one prompt answered by one `view` and a
// text; in a deeper folder too, whose longer paths give Node's path code more to do:
// src/session/config-paths.ts `projectFolder` joins its folders as text, which it asks about eight
// times a run.

const NOTES = "# Notes\n\nKeep the event log append-only.\n";

/**
 * A project folder `depth` levels below `repository` (0: the repository itself), each level's
 * name as long as a client's or a team's folder: the longer the paths, the more work Node's path
 * code does for the same run.
 */
async function projectAt(repository: string, depth: number): Promise<string> {
  const names = ["clients-and-partners", "acme-corporation-gmbh", "backend-services", "payments"];
  const folder = join(repository, ...names.slice(0, depth));
  await mkdir(folder, { recursive: true });
  return folder;
}

test.for([
  { depth: 0, where: "in a short path" },
  { depth: 4, where: "four long folder names deeper" },
])(
  "-p: a prompt answered with one view call marks nothing for V8's optimising compiler, $where",
  async ({ depth }, { repository, model, environment }) => {
    const cwd = await projectAt(repository, depth);
    await writeFile(join(cwd, "notes.md"), NOTES);
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "view", arguments: '{"path":"notes.md"}' }] },
      { text: "The notes keep the log append-only." },
    );
    const child = spawn(
      process.execPath,
      ["--trace-opt", CLI_PATH, "-p", "What does notes.md say?"],
      {
        cwd,
        env: environment(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const result = await outputOf(child);
    const lines = result.stdout.split("\n");
    const traced = lines.filter((line) => line.startsWith("["));
    expect({
      code: result.code,
      answer: lines.filter((line) => line !== "" && !line.startsWith("[")),
      marked: traced.filter((line) => line.startsWith("[marking")),
    }).toEqual({ code: 0, answer: ["The notes keep the log append-only."], marked: [] });
    // The view ran: the model read the file (so the run did what the benchmark's does).
    const toolResult = chatMessages(model, 1).find((message) => message.role === "tool");
    expect(toolResult?.content).toContain("Keep the event log append-only.");
  },
);
