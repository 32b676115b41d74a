import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { limitedModel } from "../support/context-limit.js";
import type { Reply, Wire } from "../support/fake-model-server.js";
import type { CliFixtures } from "../support/fixtures.js";
import type { Harness } from "../support/harness.js";
import { readFileTool } from "../support/test-tools.js";

/** Case 33's sessions, shared by compaction.test.ts and compacted-view.test.ts. */

/**
 * A first answer long enough that its summary is smaller: a compaction that would not shrink the
 * context is discarded (src/agent/compaction.ts).
 */
export const LONG_ANSWER =
  "One: the answer of the first prompt, long enough to be worth summarising. ".repeat(20);

/** How many files case A reads, one per model request. */
export const FILES = 6;

/** Six 6 KB files, each line naming its file, so a request shows which results it carries. */
async function writeFiles(cwd: string): Promise<void> {
  for (let file = 1; file <= FILES; file++) {
    const line = `file-${file} holds this line of text for the compaction test.\n`;
    await writeFile(join(cwd, `file-${file}.txt`), line.repeat(Math.ceil(6144 / line.length)));
  }
}

/** R1..R6 read file-1..file-6, then the model answers "finished". */
export function readAllFiles(index: number): Reply {
  return index < FILES
    ? {
        toolCalls: [
          {
            id: `call-${index + 1}`,
            name: "read_file",
            arguments: JSON.stringify({ path: `file-${index + 1}.txt` }),
          },
        ],
      }
    : { text: "finished" };
}

/**
 * Case 33 A's session: a model limited to 8,000 tokens reading six 6 KB files, while turnloop
 * believes the window is `ourWindow`.
 */
export async function caseA(
  openHarness: CliFixtures["openHarness"],
  wire: Wire,
  ourWindow: number,
): Promise<Harness> {
  const started = await openHarness({ wire, tools: [readFileTool] });
  started.settings.contextWindow = ourWindow;
  await writeFiles(started.cwd);
  started.server.setResponder(limitedModel({ limit: 8_000, conversation: readAllFiles }));
  return started;
}
