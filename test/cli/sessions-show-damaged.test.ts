import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

// A fresh user's trial: `turnloop sessions show` of a damaged log said it skipped damaged lines
// "marked in the view" and marked nothing (the Markdown export lists them). `show` now marks
// each under the session line, in the export's words, and its note says where.

let home: string;

beforeAll(async () => {
  home = await makeHome("turnloop-show-damaged-");
  const folder = join(home, "session-state", "golden-damaged");
  await mkdir(folder, { recursive: true });
  const log = await readFile(new URL("./session-view-golden/damaged.jsonl", import.meta.url));
  await writeFile(join(folder, "events.jsonl"), log);
});
afterAll(async () => {
  await removeTree(home);
});

describe("turnloop sessions show of a damaged log", () => {
  test("each skipped line is marked, and the note says where", async () => {
    const result = await runCli(["sessions", "show", "golden-damaged"], {
      cwd: home,
      env: cleanEnvironment({ TURNLOOP_HOME: home }),
    });
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout:
        "session golden-damaged · openai:gpt-5 · /w · started 2026-01-02T08:00:00.000Z\n" +
        "[damaged line 2 skipped (invalid_json)]\n" +
        "[damaged line 5 skipped (invalid_event)]\n" +
        "[damaged line 11 skipped (torn_tail)]\n" +
        "\n> hi\ndone\n" +
        '→ view(path: "a.txt") … no result\n' +
        // No process holds the log (no lock): its prompt's process ended.
        "[stop: interrupted (its process ended; recorded when the session is next opened)]\n" +
        // The golden log's folder is not on this machine.
        "(its folder /w is gone: create or restore it to resume the session)\n",
      stderr: "turnloop: skipped 3 damaged lines while reading (marked under the session line)\n",
    });
  });

  // A trial of session 21's build (round 3, session 22, #6): the JSON export said the lines were
  // "marked in the view", which JSON has none of. Each format's note says where it lists them.
  test("each export format's note says where that format lists the skipped lines", async () => {
    const notes: string[] = [];
    for (const format of ["json", "markdown"]) {
      const result = await runCli(["sessions", "export", "golden-damaged", "--format", format], {
        cwd: home,
        env: cleanEnvironment({ TURNLOOP_HOME: home }),
      });
      expect(result.code).toBe(0);
      notes.push(result.stderr);
    }
    expect(notes).toEqual([
      "turnloop: skipped 3 damaged lines while reading (listed in summary.repaired)\n",
      "turnloop: skipped 3 damaged lines while reading (listed under the summary table)\n",
    ]);
  });
});
