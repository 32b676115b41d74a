import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";

// Files that share a worker's modules (vitest.config.ts: `isolate: false`) must not hand each other
// what they set: a file's top-level `test.override({ git: true })` reached the next file of the
// worker (CI: no-terminal-reason found a `.git` it had not made). A vitest of its own runs
// shared-worker/*.file.ts in one worker, in name order (shared-worker/vitest.config.ts).

const VITEST = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));
const CONFIG = fileURLToPath(new URL("shared-worker/vitest.config.ts", import.meta.url));

interface JsonReport {
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

test("a fixture option a file overrides is back to its default in the next file of the worker", async () => {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-shared-worker-"));
  try {
    const report = join(folder, "report.json");
    const run = promisify(execFile)(
      process.execPath,
      [VITEST, "run", "--config", CONFIG, "--reporter=json", `--outputFile=${report}`],
      { env: { ...process.env, CI: "1" } },
    );
    // A failing test exits 1; the report says which.
    await run.catch(() => undefined);
    const { testResults } = JSON.parse(await readFile(report, "utf8")) as JsonReport;
    expect(
      testResults.flatMap(({ name, assertionResults }) =>
        assertionResults.map(({ title, status }) => [name.split("/").at(-1), title, status]),
      ),
    ).toEqual([
      ["1-overrides.file.ts", "the file's own override holds", "passed"],
      ["2-defaults.file.ts", "shares the first file's module graph", "passed"],
      ["2-defaults.file.ts", "starts from the fixture's defaults: no git repository", "passed"],
    ]);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
