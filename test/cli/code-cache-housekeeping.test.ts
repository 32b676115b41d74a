import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { CLI_PATH, runCli } from "../support/cli.js";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * The code cache's folders (src/cli/code-cache.cts): one per install of a build, and those of
 * other builds that went unused removed when a run makes a new one. Real runs of the built CLI
 * against the fake model, real folders with their times set by `utimes`; what V8 did with each
 * script's cache is seen through test/support/code-cache-recorder.mjs.
 */

const RECORDER = fileURLToPath(new URL("../support/code-cache-recorder.mjs", import.meta.url));
const CLI_DIRECTORY = dirname(CLI_PATH);
const DAY_SECONDS = 24 * 60 * 60;

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_CODE_CACHE_LOG",
  name: "code-cache-housekeeping",
});

const home = () => dirname(cli.log);
const codeFolder = () => join(home(), "cache", "code");

/** Runs `-p "say done"`; it must answer as usual. */
async function prompt(): Promise<void> {
  cli.server.setResponder(() => ({ text: "All done.", usage: { input: 100, output: 10 } }));
  const env = cli.environment("openai-compatible:my-model");
  const result = await runCli(["-p", "say done"], { cwd: cli.directory, env });
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "All done.\n" });
}

/** A folder `name` under `code/` holding one file, mode `mode`, last modified `days` ago. */
function cacheFolder(name: string, mode: number, days: number): void {
  const folder = join(codeFolder(), name);
  mkdirSync(folder, { mode: 0o700 });
  writeFileSync(join(folder, "chunks-run-OLD.js.bin"), "old code", { mode: 0o600 });
  chmodSync(folder, mode);
  const time = Date.now() / 1000 - days * DAY_SECONDS;
  utimesSync(folder, time, time);
}

describe("the code cache's folders", () => {
  test("a run that makes a new folder removes other builds' unused ones, only its own private folders", async () => {
    mkdirSync(codeFolder(), { recursive: true, mode: 0o700 });
    chmodSync(join(home(), "cache"), 0o700);
    cacheFolder("0123456789abcdef-01234567-v20.0.0-x64-1", 0o700, 40);
    cacheFolder("fedcba9876543210-01234567-v20.0.0-x64-1", 0o700, 31);
    cacheFolder("1111111111111111-01234567-v20.0.0-x64-1", 0o700, 10);
    cacheFolder("2222222222222222-01234567-v20.0.0-x64-1", 0o777, 40);
    // A link to an old folder of ours elsewhere: neither the link nor its folder goes.
    const elsewhere = join(home(), "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    const old = Date.now() / 1000 - 40 * DAY_SECONDS;
    utimesSync(elsewhere, old, old);
    symlinkSync(elsewhere, join(codeFolder(), "3333333333333333-01234567-v20.0.0-x64-1"));
    writeFileSync(join(codeFolder(), "a-file"), "someone's", { mode: 0o666 });
    chmodSync(join(codeFolder(), "a-file"), 0o666);
    utimesSync(join(codeFolder(), "a-file"), old, old);

    await prompt();
    const names = readdirSync(codeFolder()).sort();
    const current = names.filter((name) => !/^(\d)\1{15}-|^a-file$/.test(name));
    expect(current).toHaveLength(1);
    expect(names).toEqual(
      [
        "1111111111111111-01234567-v20.0.0-x64-1",
        "2222222222222222-01234567-v20.0.0-x64-1",
        "3333333333333333-01234567-v20.0.0-x64-1",
        "a-file",
        ...current,
      ].sort(),
    );
    expect(existsSync(elsewhere)).toBe(true);
    expect(readdirSync(join(codeFolder(), current[0] ?? "")).length).toBeGreaterThan(5);

    // A run that makes no folder removes nothing, even what has grown old meanwhile.
    const older = Date.now() / 1000 - 60 * DAY_SECONDS;
    utimesSync(join(codeFolder(), "1111111111111111-01234567-v20.0.0-x64-1"), older, older);
    await prompt();
    expect(readdirSync(codeFolder()).sort()).toEqual(names);
  });

  test("two copies of one build sharing a home keep a cache each: a stack trace names its own copy", () => {
    const copies = ["first", "second"].map((name) => join(cli.directory, name, "cli"));
    for (const copy of copies) {
      mkdirSync(copy, { recursive: true });
      for (const loader of ["code-cache.cjs", "code-cache-writer.cjs"]) {
        cpSync(join(CLI_DIRECTORY, loader), join(copy, loader));
      }
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
