/**
 * The `bin` file (package.json's, `dist/cli/turnloop.cjs`) starts as npm's `bin` link starts it:
 * executed itself, its first line giving Node the young-generation cap of issue 27 item 3
 * (`--max-semi-space-size=2 --min-semi-space-size=2`, src/cli/main.ts). It answers `--version` without Node's ES module
 * loader (issue 26 figure 2a) and runs the bundle's script of main.ts (src/cli/code-cache.cts) for
 * every other command. Editors start `dist/cli/main.js` itself, which has the same first line and
 * runs the same script; started as `node dist/cli/main.js` it works too, without the cap.
 */

import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, test } from "vitest";
import { USAGE } from "../../src/cli/usage.js";
import { BIN_PATH, CLI_PATH, cleanEnvironment, outputOf } from "../support/cli.js";

const SHEBANG = "#!/usr/bin/env -S node --max-semi-space-size=2 --min-semi-space-size=2";
const homes: string[] = [];

afterEach(() => {
  for (const home of homes.splice(0)) {
    rmSync(home, { recursive: true, force: true });
  }
});

/** Runs `command args` to its end; its exit code and output. */
function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  return outputOf(child).then(({ code, stdout }) => ({ code, stdout }));
}

/** Runs `command args` to its end; its exit code and stderr (stdout is left unread). */
function runWithStderr(
  command: string,
  args: string[],
  environment: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: environment });
  return outputOf(child).then(({ code, stderr }) => ({ code, stderr }));
}

/**
 * Starts `command args` (which must be `turnloop acp`), sends `initialize`, and once it is answered
 * reads the process's command line from /proc; then ends its input and waits for its exit.
 */
async function acpCommandLine(command: string, args: string[]) {
  const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
  homes.push(home);
  const child = spawn(command, args, {
    cwd: home,
    env: cleanEnvironment({ HOME: home, TURNLOOP_HOME: home }),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines = createInterface({ input: child.stdout });
  const answered = new Promise<string>((resolve) => lines.once("line", resolve));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  const answer = JSON.parse(await answered) as {
    id: unknown;
    result?: { protocolVersion?: unknown };
  };
  const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  child.stdin.end();
  return {
    answer: { id: answer.id, protocolVersion: answer.result?.protocolVersion },
    commandLine,
    exitCode: await closed,
  };
}

/**
 * Lines of a CommonJS preload that call `record(flag)` (a function the preload defines first) for
 * each V8 flag set, through `node:v8` or through V8's binding (`process.binding("v8")`, which the
 * entries use: src/cli/turnloop.cts).
 */
const FLAG_HOOKS = [
  'const v8 = require("node:v8");',
  "const set = v8.setFlagsFromString;",
  "v8.setFlagsFromString = (flag) => {",
  "  record(flag);",
  "  return set(flag);",
  "};",
  "const binding = process.binding;",
  "process.binding = function (name) {",
  "  const value = binding.call(this, name);",
  '  return name === "v8" ? { ...value, setFlagsFromString: v8.setFlagsFromString } : value;',
  "};",
];

describe("the bin file", () => {
  test("the bin and main.js are executable and their first line starts node with the young-generation cap", () => {
    for (const file of [BIN_PATH, CLI_PATH]) {
      expect(readFileSync(file, "utf8").split("\n", 1)[0]).toBe(SHEBANG);
      expect(() => accessSync(file, constants.X_OK)).not.toThrow();
    }
  });

  test("executed itself, it answers --version and -v; --help goes on to main.ts's script", async () => {
    expect(await run(BIN_PATH, ["--version"])).toEqual({ code: 0, stdout: "0.1.0\n" });
    expect(await run(BIN_PATH, ["-v"])).toEqual({ code: 0, stdout: "0.1.0\n" });
    const help = await run(BIN_PATH, ["--help"]);
    // Into a pipe it is wrapped at 80 columns, between words: only the spaces differ.
    const words = (text: string) => text.trim().split(/\s+/);
    expect({
      code: help.code,
      firstLine: help.stdout.split("\n", 1)[0],
      wider: help.stdout.split("\n").filter((line) => line.length > 80),
      words: words(help.stdout),
    }).toEqual({
      code: 0,
      firstLine: "turnloop: an open, model-agnostic coding agent.",
      wider: [],
      words: words(USAGE),
    });
  });

  test("--version loads neither Node's ES module loader nor process.stdout's streams", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
    homes.push(home);
    // A CommonJS preload (`-r`) that writes, at exit, the names of Node's own modules loaded.
    const preload = join(home, "node-modules-at-exit.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(join(home, "loaded"))}, process.moduleLoadList.join("\\n")));\n`,
    );
    expect(await run(process.execPath, ["-r", preload, BIN_PATH, "--version"])).toEqual({
      code: 0,
      stdout: "0.1.0\n",
    });
    const loaded = readFileSync(join(home, "loaded"), "utf8").split("\n");
    expect(loaded.filter((name) => /modules\/esm\/loader|\bstream$|tty$/.test(name))).toEqual([]);
  });

  test("main.js sets the first line's flag back to its default: V8's flag hash is then a bare node's again, so Node's own code cache stays usable", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
    homes.push(home);
    const tag = "require('node:v8').cachedDataVersionTag()";
    const bare = await run(process.execPath, ["-p", tag]);
    // The flags alone change the hash (so the check below can fail).
    const flagged = await run(process.execPath, [
      "--max-semi-space-size=2",
      "--min-semi-space-size=2",
      "-p",
      tag,
    ]);
    expect(flagged.stdout).not.toBe(bare.stdout);
    // A CommonJS preload (`-r`) that writes, at exit, the hash then in force.
    const preload = join(home, "tag-at-exit.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(join(home, "tag"))}, String(${tag})));\n`,
    );
    const version = await run(process.execPath, [
      "--max-semi-space-size=2",
      "--min-semi-space-size=2",
      "-r",
      preload,
      CLI_PATH,
      "--version",
    ]);
    expect({ ...version, tag: readFileSync(join(home, "tag"), "utf8") }).toEqual({
      code: 0,
      stdout: "0.1.0\n",
      tag: bare.stdout.trim(),
    });
  });

  test("the bin sets the flag back once, and runs the command without Node's ES module loader (its modules and the bundle's scripts then compile under the default flag hash)", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
    homes.push(home);
    // A CommonJS preload (`-r`) that records each V8 flag set, and whether the loader was loaded.
    const preload = join(home, "flags-set.cjs");
    writeFileSync(
      preload,
      [
        "const record = (flag) =>",
        `  require("node:fs").appendFileSync(${JSON.stringify(join(home, "flags"))}, \`\${flag} \${process.moduleLoadList.includes("NativeModule internal/modules/esm/loader")}\\n\`);`,
        ...FLAG_HOOKS,
        "",
      ].join("\n"),
    );
    const help = await run(process.execPath, [
      "--max-semi-space-size=2",
      "--min-semi-space-size=2",
      "-r",
      preload,
      BIN_PATH,
      "--help",
    ]);
    expect(help.code).toBe(0);
    // The bin's, and none from the scripts (src/cli/code-cache.cts runs them as CommonJS does)
    // or run.ts (v8-flags.ts); the ES module loader never loaded.
    expect(readFileSync(join(home, "flags"), "utf8").split("\n")).toEqual([
      "--max-semi-space-size=0 --min-semi-space-size=0 false",
      "",
    ]);
  });

  test("the bin's reset comes before Node's stream modules load (they then take Node's code cache) and warns of nothing; without V8's binding, node:v8 resets the flag", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
    homes.push(home);
    // CommonJS preloads (`-r`) that load no stream module themselves: one records each flag set
    // through the binding and whether `stream` had loaded; one takes the binding away and writes
    // V8's flag hash at exit.
    const streams = join(home, "streams-at-reset.cjs");
    writeFileSync(
      streams,
      [
        "const binding = process.binding;",
        "process.binding = function (name) {",
        "  const value = binding.call(this, name);",
        '  if (name !== "v8") return value;',
        "  const record = (flag) =>",
        `    require("node:fs").appendFileSync(${JSON.stringify(join(home, "flags"))}, \`\${flag} \${process.moduleLoadList.includes("NativeModule stream")}\\n\`);`,
        "  return { ...value, setFlagsFromString: (flag) => (record(flag), value.setFlagsFromString(flag)) };",
        "};",
        "",
      ].join("\n"),
    );
    const noBinding = join(home, "no-binding.cjs");
    writeFileSync(
      noBinding,
      [
        "process.binding = undefined;",
        `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(join(home, "tag"))}, String(require("node:v8").cachedDataVersionTag())));`,
        "",
      ].join("\n"),
    );
    const help = (preload: string) =>
      runWithStderr(process.execPath, [
        "--max-semi-space-size=2",
        "--min-semi-space-size=2",
        "-r",
        preload,
        BIN_PATH,
        "--help",
      ]);
    const viaBinding = await help(streams);
    expect({ code: viaBinding.code, stderr: viaBinding.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(join(home, "flags"), "utf8")).toBe(
      "--max-semi-space-size=0 --min-semi-space-size=0 false\n",
    );
    const bare = await run(process.execPath, ["-p", "require('node:v8').cachedDataVersionTag()"]);
    const viaNodeV8 = await help(noBinding);
    expect({
      code: viaNodeV8.code,
      stderr: viaNodeV8.stderr,
      tag: readFileSync(join(home, "tag"), "utf8"),
    }).toEqual({ code: 0, stderr: "", tag: bare.stdout.trim() });
  });

  test("Node's deprecation flags, on the command line or in NODE_OPTIONS, neither stop the reset nor reach stderr (--no-deprecation makes process.noDeprecation read-only)", async () => {
    const flags = ["--no-deprecation", "--throw-deprecation", "--pending-deprecation"];
    // The twelve runs at once: one after another they outlast the timeout on a loaded machine.
    const runs = flags.flatMap((flag) =>
      [BIN_PATH, CLI_PATH].flatMap((entry) => {
        const name = entry === BIN_PATH ? "bin" : "main.js";
        return [
          [`node ${flag} ${name}`, runWithStderr(process.execPath, [flag, entry, "--help"])],
          [
            `NODE_OPTIONS=${flag} ${name}`,
            runWithStderr(entry, ["--help"], { ...process.env, NODE_OPTIONS: flag }),
          ],
        ] as const;
      }),
    );
    const outcomes = Object.fromEntries(
      await Promise.all(runs.map(async ([name, outcome]) => [name, await outcome] as const)),
    );
    const clean = { code: 0, stderr: "" };
    expect(outcomes).toEqual(
      Object.fromEntries(
        flags.flatMap((flag) =>
          ["bin", "main.js"].flatMap((name) => [
            [`node ${flag} ${name}`, clean],
            [`NODE_OPTIONS=${flag} ${name}`, clean],
          ]),
        ),
      ),
    );
  });

  test("acp sets no V8 flag but the reset, before its initialize answer or after it", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnloop-bin-"));
    homes.push(home);
    // A CommonJS preload (`-r`) that records each V8 flag set, and whether stdout was written to.
    const preload = join(home, "flags-set.cjs");
    writeFileSync(
      preload,
      [
        'const fs = require("node:fs");',
        "let answered = false;",
        "const write = process.stdout.write;",
        "process.stdout.write = function (...args) { answered = true; return write.apply(this, args); };",
        "const record = (flag) =>",
        `  fs.appendFileSync(${JSON.stringify(join(home, "flags"))}, \`\${flag} \${answered ? "after" : "before"}\\n\`);`,
        ...FLAG_HOOKS,
        "",
      ].join("\n"),
    );
    expect(
      await acpCommandLine(process.execPath, [
        "--max-semi-space-size=2",
        "--min-semi-space-size=2",
        "-r",
        preload,
        CLI_PATH,
        "acp",
      ]),
    ).toMatchObject({ answer: { id: 1, protocolVersion: 1 }, exitCode: 0 });
    expect(readFileSync(join(home, "flags"), "utf8").split("\n")).toEqual([
      "--max-semi-space-size=0 --min-semi-space-size=0 before",
      "",
    ]);
  });

  // /proc is Linux's; CI runs Linux, so this skips nowhere it must run.
  test.skipIf(process.platform !== "linux")(
    "`turnloop acp` executed itself runs node with the cap; `node dist/cli/main.js acp` runs without it",
    async () => {
      expect(await acpCommandLine(BIN_PATH, ["acp"])).toEqual({
        answer: { id: 1, protocolVersion: 1 },
        commandLine: [
          "node",
          "--max-semi-space-size=2",
          "--min-semi-space-size=2",
          BIN_PATH,
          "acp",
        ],
        exitCode: 0,
      });
      expect(await acpCommandLine(CLI_PATH, ["acp"])).toEqual({
        answer: { id: 1, protocolVersion: 1 },
        commandLine: [
          "node",
          "--max-semi-space-size=2",
          "--min-semi-space-size=2",
          CLI_PATH,
          "acp",
        ],
        exitCode: 0,
      });
      expect(await acpCommandLine(process.execPath, [CLI_PATH, "acp"])).toEqual({
        answer: { id: 1, protocolVersion: 1 },
        commandLine: [process.execPath, CLI_PATH, "acp"],
        exitCode: 0,
      });
    },
  );
});
