import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { CLI_PATH, runCli } from "../support/cli.js";
import { CAN_MOUNT, fullDisk } from "../support/full-disk.js";
import { useRecordedCli } from "../support/recorded-cli.js";

/**
 * Issue 26: the bundle's scripts keep their compiled code under the user's turnloop home
 * (src/cli/code-cache.cts). Real runs of the built CLI against the fake model; what V8 did with
 * each script's cache is seen through test/support/code-cache-recorder.mjs (accepted, rejected,
 * or none given), never through a time.
 */

const RECORDER = fileURLToPath(new URL("../support/code-cache-recorder.mjs", import.meta.url));
const SCRIPTS = join(dirname(CLI_PATH), "scripts");

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_CODE_CACHE_LOG",
  name: "code-cache",
});

/** Runs `-p "say done"` with `extra` in the environment; the recorder's lines of that run. */
async function prompt(extra: NodeJS.ProcessEnv = {}): Promise<Array<[string, string]>> {
  writeFileSync(cli.log, "");
  cli.server.setResponder(() => ({ text: "All done.", usage: { input: 100, output: 10 } }));
  const env = { ...cli.environment("openai-compatible:my-model"), ...extra };
  const result = await runCli(["-p", "say done"], { cwd: cli.directory, env });
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
    code: 0,
    stdout: "All done.\n",
    // The run's summary line alone: no warning, no error.
    stderr: expect.stringMatching(
      /^1 turn · 100 in \/ 10 out tokens · [\d.]+ s · session [0-9a-f-]+\n$/,
    ),
  });
  return readFileSync(cli.log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [outcome = "", file = ""] = line.split(" ");
      return [outcome, file.slice(SCRIPTS.length + 1)];
    });
}

const home = () => dirname(cli.log);
const cacheRoot = () => join(home(), "cache");

/** The one folder of cache files (one build, one Node, one flag hash) and its files. */
function cacheFiles(): { folder: string; files: string[] } {
  const folders = readdirSync(join(cacheRoot(), "code"));
  expect(folders).toHaveLength(1);
  const folder = join(cacheRoot(), "code", folders[0] ?? "");
  return { folder, files: readdirSync(folder).sort() };
}

describe("V8's code cache of the bundle's scripts (issue 26)", () => {
  test("the first run writes a cache per script it ran, in a folder only the user can open; the next takes every one and writes none", async () => {
    const first = await prompt();
    // The scripts up to the answer, main.ts's first, all compiled without a cache.
    expect(first[0]).toEqual(["none", "main.js"]);
    expect(first.length).toBeGreaterThan(5);
    expect(first.filter(([outcome]) => outcome !== "none")).toEqual([]);
    expect(statSync(cacheRoot()).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheRoot(), "code")).mode & 0o777).toBe(0o700);
    const { folder, files } = cacheFiles();
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(files).toEqual(first.map(([, script]) => `${script.replaceAll("/", "-")}.bin`).sort());
    expect(files.map((file) => statSync(join(folder, file)).mode & 0o777)).toEqual(
      files.map(() => 0o600),
    );
    const inodes = files.map((file) => statSync(join(folder, file)).ino);

    const second = await prompt();
    expect(second).toEqual(first.map(([, script]) => ["accepted", script]));
    // Nothing written again: the same files (a write renames a new one over the old).
    expect(cacheFiles().files).toEqual(files);
    expect(files.map((file) => statSync(join(folder, file)).ino)).toEqual(inodes);
  });

  test("a run that writes a new script's cache (a first tool call) writes again the caches it took, with the functions it compiled in them", async () => {
    // Issue 26, figure 3b (bench/notes/turn45.md): caches made by a run that called no tool held
    // none of a tool call's functions in the shared scripts, and were never written again, so
    // every later run compiled them at its first tool call.
    writeFileSync(join(cli.directory, "notes.md"), "The notes.\n");
    const answered = await prompt();
    const { folder, files } = cacheFiles();
    const sizes = () => new Map(files.map((file) => [file, statSync(join(folder, file)).size]));
    const inodes = () => files.map((file) => statSync(join(folder, file)).ino);
    const [answeredSizes, answeredInodes] = [sizes(), inodes()];

    const viewRun = async () => {
      writeFileSync(cli.log, "");
      let calls = 0;
      cli.server.setResponder(() =>
        calls++ === 0
          ? {
              toolCalls: [
                { id: "call_1", name: "view", arguments: JSON.stringify({ path: "notes.md" }) },
              ],
            }
          : { text: "All done." },
      );
      const env = cli.environment("openai-compatible:my-model");
      const result = await runCli(["-p", "read the notes"], { cwd: cli.directory, env });
      expect({ code: result.code, stdout: result.stdout }).toEqual({
        code: 0,
        stdout: "All done.\n",
      });
      const lines = readFileSync(cli.log, "utf8").split("\n");
      return new Set(lines.filter((line) => line !== "").map((line) => line.split(" ")[0]));
    };
    // Scripts of its own (the hidden places' chunk) compile: every cache is written again.
    expect(await viewRun()).toEqual(new Set(["accepted", "none"]));
    const viewedInodes = inodes();
    expect(viewedInodes.filter((inode, index) => inode === answeredInodes[index])).toEqual([]);
    // The scripts the answer ran and the tool call ran more of hold more compiled code now.
    const grown = [...sizes()].filter(([file, size]) => size > (answeredSizes.get(file) ?? 0));
    expect(grown.map(([file]) => file)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^chunks-shared-/)]),
    );
    // The next tool call's run takes every cache and writes none.
    expect(await viewRun()).toEqual(new Set(["accepted"]));
    expect(inodes()).toEqual(viewedInodes);
    expect(answered.length).toBeGreaterThan(5);
  });

  test("neither a run that writes its caches nor one that takes them loads node:v8 (V8's tag comes from its binding), and neither warns", async () => {
    // A CommonJS preload that writes, at exit, the names of Node's own modules loaded: its exit
    // listener comes after the loader's (added while the first script compiled), which writes
    // the caches of a first run.
    const preload = join(home(), "builtins-at-exit.cjs");
    const loaded = join(home(), "builtins");
    writeFileSync(
      preload,
      `setImmediate(() => process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join("\\n"))));\n`,
    );
    const options = `${cli.environment("openai-compatible:my-model").NODE_OPTIONS} -r ${preload}`;
    const builtins = async () => {
      const outcomes = await prompt({ NODE_OPTIONS: options });
      const names = readFileSync(loaded, "utf8").split("\n");
      // The preload saw the run's modules (so the check can fail): the prompt's HTTP client.
      expect(names).toContain("NativeModule http");
      return {
        outcomes: [...new Set(outcomes.map(([outcome]) => outcome))],
        v8: names.filter((name) => /^NativeModule (v8|internal\/heap_utils)$/.test(name)),
      };
    };
    // prompt() checks stderr holds the summary line alone (no deprecation warning).
    expect([await builtins(), await builtins()]).toEqual([
      { outcomes: ["none"], v8: [] },
      { outcomes: ["accepted"], v8: [] },
    ]);
  });

  test("a truncated or damaged cache file is refused, the script compiles, and the file is replaced", async () => {
    const first = await prompt();
    const { folder, files } = cacheFiles();
    const [truncated, damaged] = files.filter((file) => /^chunks-shared-/.test(file));
    expect([truncated, damaged].every((file) => file !== undefined)).toBe(true);
    const truncatedPath = join(folder, truncated ?? "");
    const damagedPath = join(folder, damaged ?? "");
    const whole = readFileSync(truncatedPath);
    writeFileSync(truncatedPath, whole.subarray(0, whole.length >> 1));
    const bytes = readFileSync(damagedPath);
    bytes.fill(0x5a, 0, 64);
    writeFileSync(damagedPath, bytes);

    const second = await prompt();
    const name = (file: string | undefined) => (file ?? "").replace(/\.bin$/, "").replace("-", "/");
    expect(second).toEqual(
      first.map(([, script]) => [
        script === name(truncated) || script === name(damaged) ? "rejected" : "accepted",
        script,
      ]),
    );
    // Both replaced: a whole cache again (its size varies with what the run compiled), a header
    // V8 wrote; the next run takes them.
    expect(readFileSync(truncatedPath).length).toBeGreaterThan(whole.length >> 1);
    expect(
      readFileSync(damagedPath)
        .subarray(0, 64)
        .every((byte) => byte === 0x5a),
    ).toBe(false);
    const third = await prompt();
    expect(third).toEqual(first.map(([, script]) => ["accepted", script]));
  });

  test("a cache folder others can write is neither read nor written; one that cannot be made costs nothing", async () => {
    mkdirSync(cacheRoot(), { mode: 0o700 });
    chmodSync(cacheRoot(), 0o777);
    const shared = await prompt();
    expect(shared.length).toBeGreaterThan(5);
    expect(readdirSync(cacheRoot())).toEqual([]);

    // `cache` a file: no folder can be made there (as in a home that cannot be written).
    rmSync(cacheRoot(), { recursive: true });
    writeFileSync(cacheRoot(), "not a folder");
    const blocked = await prompt();
    expect(blocked.filter(([outcome]) => outcome !== "none")).toEqual([]);
    expect(readFileSync(cacheRoot(), "utf8")).toBe("not a folder");
  });

  test("a folder below the cache others can write (code/, a build's) is neither read nor written", async () => {
    await prompt();
    const { folder, files } = cacheFiles();
    const written = () => files.map((file) => statSync(join(folder, file)).mtimeMs);
    const before = written();
    for (const open of [folder, join(cacheRoot(), "code")]) {
      chmodSync(open, 0o777);
      const run = await prompt();
      expect(run.length).toBeGreaterThan(5);
      expect(run.filter(([outcome]) => outcome !== "none")).toEqual([]);
      expect(readdirSync(folder).sort()).toEqual(files);
      expect(written()).toEqual(before);
      chmodSync(open, 0o700);
    }
  });

  test.runIf(CAN_MOUNT)(
    "a home on a small disk gets no cache: it keeps 64 MiB free for the session logs",
    async () => {
      const disk = await fullDisk(4096, false);
      try {
        for (let run = 0; run < 2; run++) {
          const outcomes = await prompt({ TURNLOOP_HOME: disk.home });
          expect(outcomes.filter(([outcome]) => outcome !== "none")).toEqual([]);
        }
        expect(existsSync(join(disk.home, "cache"))).toBe(false);
      } finally {
        await disk.close();
      }
    },
  );

  test("TURNLOOP_NO_CODE_CACHE=1: no cache is read or written", async () => {
    const off = await prompt({ TURNLOOP_NO_CODE_CACHE: "1" });
    expect(off.length).toBeGreaterThan(5);
    expect(off.filter(([outcome]) => outcome !== "none")).toEqual([]);
    expect(existsSync(cacheRoot())).toBe(false);
    // With a cache there (so the check can fail), still none is given to V8.
    await prompt();
    expect(cacheFiles().files.length).toBeGreaterThan(5);
    const offAgain = await prompt({ TURNLOOP_NO_CODE_CACHE: "1" });
    expect(offAgain.filter(([outcome]) => outcome !== "none")).toEqual([]);
  });

  test("a script holding characters other than ASCII is read as UTF-8, with and without its cache", async () => {
    // The session viewer's page scripts keep their own characters (scripts/code-cache-scripts.mjs);
    // `sessions export --format html` writes them into the page as the script holds them.
    await prompt();
    const [sessionId = ""] = readdirSync(join(home(), "session-state"));
    const env = cli.environment("openai-compatible:my-model");
    const exported = async (extra: NodeJS.ProcessEnv) => {
      const args = ["sessions", "export", sessionId, "--format", "html"];
      const result = await runCli(args, { cwd: cli.directory, env: { ...env, ...extra } });
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      return result.stdout;
    };
    const uncached = await exported({ TURNLOOP_NO_CODE_CACHE: "1" });
    expect(uncached).toContain(" · started at +");
    expect(uncached).not.toContain("\u00c2");
    expect(await exported({})).toBe(uncached);
    writeFileSync(cli.log, "");
    expect(await exported({})).toBe(uncached);
    const lines = readFileSync(cli.log, "utf8").split("\n");
    expect(lines.filter((line) => line.includes("/chunks/command-"))).toEqual([
      expect.stringMatching(/^accepted /),
    ]);
  });

  test("with --enable-source-maps, a stack trace through a script names turnloop's sources", () => {
    const chunks = join(SCRIPTS, "chunks");
    const run = readdirSync(chunks).find((file) => /^run-.*\.js$/.test(file)) ?? "";
    // run.ts's runCommand given no arguments fails in the argument parser (its first reader of
    // argv, withPromptFromStdin, is in argument-flags.ts).
    const program = [
      `const { runScript } = require(${JSON.stringify(join(dirname(CLI_PATH), "code-cache.cjs"))});`,
      `runScript(${JSON.stringify(join(chunks, run))}).runCommand(undefined, "0")`,
      "  .catch((error) => process.stdout.write(error.stack.split('\\n')[1]));",
    ].join("\n");
    const frame = (flags: string[]) =>
      execFileSync(process.execPath, [...flags, "-e", program], {
        env: { PATH: process.env.PATH, TURNLOOP_NO_CODE_CACHE: "1" },
        encoding: "utf8",
      });
    const mapped = frame(["--enable-source-maps"]);
    expect(mapped).toMatch(/\/src\/cli\/argument-flags\.ts:\d+:\d+\)$/);
    // At the very line and column where the bundle's ES module of the same chunk, with its own
    // source map, puts it: the function sits on the script's second line after esbuild's
    // helpers, which the build rewrites at their length (scripts/code-cache-scripts.mjs).
    const module = pathToFileURL(join(dirname(CLI_PATH), "chunks", run)).href;
    const fromModule = execFileSync(
      process.execPath,
      [
        "--enable-source-maps",
        "-e",
        `import(${JSON.stringify(module)}).then((chunk) => chunk.runCommand(undefined, "0"))` +
          "  .catch((error) => process.stdout.write(error.stack.split('\\n')[1]));",
      ],
      { env: { PATH: process.env.PATH }, encoding: "utf8" },
    );
    expect(fromModule).toMatch(/\/src\/cli\/argument-flags\.ts:\d+:\d+\)$/);
    expect(mapped).toBe(fromModule);
    expect(frame([])).toMatch(/\/dist\/cli\/scripts\/chunks\/run-.*\.js:\d+:\d+\)$/);
  });
});
