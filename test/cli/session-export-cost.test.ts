import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

// A trial of session 23's build (round 3, session 24, #6): the Markdown export's cost row read
// `$0.3001` when only some turns had a price, with nothing saying the total leaves turns out.

let home: string;

beforeAll(async () => {
  home = await makeHome("turnloop-export-cost-");
  const folder = join(home, "session-state", "golden-new-order");
  await mkdir(folder, { recursive: true });
  const log = await readFile(new URL("./session-view-golden/new-order.jsonl", import.meta.url));
  await writeFile(join(folder, "events.jsonl"), log);
});
afterAll(async () => {
  await removeTree(home);
});

describe("the Markdown export's cost row", () => {
  test("a total over some of the turns says how many had a cost", async () => {
    const result = await runCli(
      ["sessions", "export", "golden-new-order", "--format", "markdown"],
      { cwd: home, env: cleanEnvironment({ TURNLOOP_HOME: home }) },
    );
    expect(result.code).toBe(0);
    // The golden log: 7 turns, 4 of them with a cost (test/cli/session-view-model.test.ts).
    expect(result.stdout.split("\n").filter((line) => line.startsWith("| cost |"))).toEqual([
      "| cost | $0.5310 (4 of 7 requests report a cost; the rest have no price) |",
    ]);
  });
});
