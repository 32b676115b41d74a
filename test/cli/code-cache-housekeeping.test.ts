import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * The code cache's folders (src/cli/code-cache.cts): one per install of a build. Real runs of the
 * built scripts; what V8 did with each script's cache is seen through
 * test/support/code-cache-recorder.mjs.
 */

const RECORDER = fileURLToPath(new URL("../support/code-cache-recorder.mjs", import.meta.url));
const CLI_DIRECTORY = dirname(CLI_PATH);

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_CODE_CACHE_LOG",
  name: "code-cache-housekeeping",
});

const home = () => dirname(cli.log);
const codeFolder = () => join(home(), "cache", "code");

describe("the code cache's folders", () => {
  test("two copies of one build sharing a home keep a cache each: a stack trace names its own copy", () => {
    const copies = ["first", "second"].map((name) => join(cli.directory, name, "cli"));
    for (const copy of copies) {
      mkdirSync(copy, { recursive: true });
      cpSync(join(CLI_DIRECTORY, "code-cache.cjs"), join(copy, "code-cache.cjs"));
      cpSync(join(CLI_DIRECTORY, "scripts"), join(copy, "scripts"), { recursive: true });
    }
    const run = readdirSync(join(CLI_DIRECTORY, "scripts", "chunks")).find((file) =>
      /^run-.*\.js$/.test(file),
    );
    /** The first frame of run.ts's error for no arguments, and what V8 did with run's cache. */
    const trace = (copy: string): [string, string] => {
      writeFileSync(cli.log, "");
      const script = join(copy, "scripts", "chunks", run ?? "");
      const program = [
        `const { runScript } = require(${JSON.stringify(join(copy, "code-cache.cjs"))});`,
        `runScript(${JSON.stringify(script)}).runCommand(undefined, "0")`,
        "  .catch((error) => process.stdout.write(error.stack.split('\\n')[1]));",
      ].join("\n");
      const frame = execFileSync(process.execPath, [`--import=${RECORDER}`, "-e", program], {
        env: {
          PATH: process.env.PATH,
          TURNLOOP_HOME: home(),
          TURNLOOP_TEST_CODE_CACHE_LOG: cli.log,
        },
        encoding: "utf8",
      });
      const outcome = readFileSync(cli.log, "utf8")
        .split("\n")
        .find((line) => line.endsWith(script));
      // `    at <function> (<file>:<line>:<column>)`: the file alone.
      return [frame.replace(/^ +at [^(]+\((.*):\d+:\d+\)$/, "$1"), outcome?.split(" ")[0] ?? ""];
    };
    const frameIn = (copy: string) => join(copy, "scripts", "chunks", run ?? "");
    const [first = "", second = ""] = copies;
    expect([trace(first), trace(second), trace(first), trace(second)]).toEqual([
      [frameIn(first), "none"],
      [frameIn(second), "none"],
      [frameIn(first), "accepted"],
      [frameIn(second), "accepted"],
    ]);
    expect(readdirSync(codeFolder())).toHaveLength(2);
  });
});
