import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { bytesOf, modulesOutsideBundle, sourceModules } from "../support/loaded-modules.js";
import { coldCodeCache } from "../support/test-home.js";
import { INPUT_BOX, type InteractiveFixture, interactiveTest } from "./interactive-support.js";

/**
 * Issue 26: the interactive face draws its input box before it loads what only a session needs.
 * The built CLI runs in a terminal with the module recorder (test/support/module-recorder.mjs)
 * and a marker of the box's first frame (test/support/box-drawn-marker.mjs); the modules recorded
 * before the marker are checked by name and by count. Counts, never times.
 *
 * The config files are checked before the box is drawn (a bad one exits 64 first): zod, their
 * schema's library, loads before the box when a file is there, and only then.
 */

const RECORDER = fileURLToPath(new URL("../support/module-recorder.mjs", import.meta.url));
const MARKER = fileURLToPath(new URL("../support/box-drawn-marker.mjs", import.meta.url));
const FLAGS = fileURLToPath(new URL("../support/v8-flag-recorder.mjs", import.meta.url));
/** The line the marker writes. */
const BOX_DRAWN = "-- input box drawn";
/** How the flag recorder's lines start. */
const V8_FLAG = "-- v8 flag ";
/**
 * Modules loaded from outside the bundle (Node's own) when the box is drawn: 10 in session 38.
 * Until then the bound counted source modules (75 at the last, its history in this file's git
 * log): a source module inside a bundle file costs its bytes alone, so what the bundle holds is
 * counted by its files ({@link BOX_FILE_BOUND}) and their bytes ({@link BOX_BYTE_BOUND}), as
 * test/cli/modules-loaded.test.ts does for `-p`.
 */
const BOX_UNBUNDLED_MODULE_BOUND = 10;
/**
 * Bytes of the bundle files read before the box: 371,647 in session 38, bounded at 375 KiB; in
 * session 44 385,919, bounded at 378 KiB: the config checks' words for a URL's port (url-port.ts)
 * and a secret-looking MCP server argument (llm/shown-values.ts), a bare model name's source
 * (face-config.ts), a store that could not connect told from one that could not write
 * (storage-error.ts), and `sessions --limit`'s flag (the argument parser). Session 46's merge:
 * 387,252, among its additions on this path the status line's cost that covers some requests
 * (cli/interactive/status-line.ts) and the usage fold's user requests and last call
 * (session/usage-totals.ts): bounded at 379 KiB. Session 47 (fixci): 388,411, with main.ts's line
 * for a failed write to stdout and its stop for a signal before any face listens (+0.7 KB, every
 * face) and the token kinds of secret names (events/secrets.ts): bounded at 380 KiB. The session's
 * merge: 389,256, with the status line's order of what it drops when narrow
 * (cli/interactive/status-line.ts) and a tool argument's control characters shown, not obeyed
 * (events/terminal-text.ts): bounded at 381 KiB.
 */
const BOX_BYTE_BOUND = 381 * 1024;
/**
 * Files of the bundled CLI read before the box: 30 on 2026-12-02 (round 3, session 8), most of
 * them chunks of a few hundred bytes that esbuild split out; 9 once the chunks that the same kinds
 * of run load became one file (scripts/merge-chunks.mjs, its phases in scripts/bundle.mjs). Each
 * file costs a resolve, a read and a compile. 12 in session 26: events/random-id.ts became a
 * chunk of its own (see BUNDLE_FILE_BOUND in modules-loaded.test.ts).
 */
const BOX_FILE_BOUND = 12;
/** zod: the config files' schema, and the tools' (loaded with the session). */
const ZOD = /node_modules\/zod\//;
/** What only a session or an answer needs: loaded by the time an answer is drawn. */
const FOR_AN_ANSWER = [
  /\bsrc\/(agent\/|(llm\/(models|ai-sdk-provider)|tools\/index|session\/(host|session|file-store))\.ts$)/,
  /\bsrc\/session\/session-model\//,
  /\bsrc\/cli\/(markdown|interactive\/(transcript|controller))\.ts$/,
  /node_modules\/(marked|@ai-sdk|picomatch|zod)\//,
];
/** What only an @-completion or an MCP server needs (loaded on first use). */
const ON_FIRST_USE = /node_modules\/(@vscode\/ripgrep|@modelcontextprotocol|pg)\//;
/** Node's modules that the box does without: an @-completion's, and the V8 flags'. */
const NOT_FOR_THE_BOX = ["node:child_process", "node:v8"];
/**
 * An ES module import of `node:fs`, whose facade loads Node's file streams: the bundle files read
 * before the box take it with `process.getBuiltinModule` (scripts/pi-tui-builtins-direct.mjs).
 * Checked in the files' text: the recorder, which imports `node:fs` before its hooks start, never
 * sees the CLI's import of it. The bundle's scripts (dist/cli/scripts/) import no ES module at
 * all: a `require` of `node:fs` builds no facade.
 */
const FS_IMPORT = /(from|import)\s*"(node:)?fs"/;

/**
 * Opens the interactive face with the module recorder, the box marker and the V8 flag recorder,
 * asks for an answer and closes it: the source modules loaded before the box was drawn, and by
 * the end; the V8 flags set before the box, and by the end.
 */
async function modulesLoaded(fixture: InteractiveFixture) {
  // What a first run in a fresh home loads: no code cache (test/support/test-home.ts).
  await coldCodeCache(fixture.home);
  const log = join(fixture.home, "recorded.log");
  fixture.server.setResponder(() => ({ text: "**Done**, as asked." }));
  const terminal = fixture.open([], {
    env: {
      NODE_OPTIONS: `--import=${RECORDER} --import=${MARKER} --import=${FLAGS}`,
      TURNLOOP_TEST_MODULE_LOG: log,
    },
  });
  await terminal.waitFor(INPUT_BOX);
  await terminal.waitFor(/\/help lists the commands/);
  terminal.type("say done");
  terminal.key("Enter");
  await terminal.waitFor(/Done, as asked\.[\s\S]*Enter send/);
  terminal.key("C-d");
  expect((await terminal.exited()).code).toBe(0);
  const recorded = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
  const marker = recorded.indexOf(BOX_DRAWN);
  expect(marker).toBeGreaterThan(0);
  const flags = (from: number, to?: number) =>
    recorded
      .slice(from, to)
      .filter((line) => line.startsWith(V8_FLAG))
      .map((line) => line.slice(V8_FLAG.length));
  const modules = (lines: string[]) =>
    lines.filter((line) => line !== BOX_DRAWN && !line.startsWith(V8_FLAG));
  const bundle = `${pathToFileURL(dirname(CLI_PATH)).href}/`;
  return {
    filesAtBox: [
      ...new Set(modules(recorded.slice(0, marker)).filter((line) => line.startsWith(bundle))),
    ],
    atBox: sourceModules(modules(recorded.slice(0, marker))),
    outsideAtBox: modulesOutsideBundle(modules(recorded.slice(0, marker))),
    atEnd: sourceModules(modules(recorded)),
    flagsAtBox: flags(0, marker),
    flagsAfterBox: flags(marker),
  };
}

const matching = (modules: string[], pattern: RegExp) =>
  modules.filter((name) => pattern.test(name));

describe.skipIf(tmuxMissing())(
  "turnloop (interactive): modules loaded before the input box",
  () => {
    interactiveTest(
      "without config files, the box is drawn before zod, the session stack, the provider, the Markdown renderer and ripgrep load; an answer loads them",
      async ({ fixture }) => {
        const { atBox, atEnd, filesAtBox, outsideAtBox, flagsAtBox, flagsAfterBox } =
          await modulesLoaded(fixture);
        // Before the box: none of them, and the face itself (so the recorder saw the bundle).
        expect(FOR_AN_ANSWER.map((pattern) => matching(atBox, pattern))).toEqual(
          FOR_AN_ANSWER.map(() => []),
        );
        expect(matching(atBox, ON_FIRST_USE)).toEqual([]);
        expect(atBox.filter((name) => NOT_FOR_THE_BOX.includes(name))).toEqual([]);
        expect(atBox).toContain("src/cli/interactive/screen.ts");
        expect(outsideAtBox).toContain("node:fs");
        expect(outsideAtBox.length).toBeLessThanOrEqual(BOX_UNBUNDLED_MODULE_BOUND);
        expect(bytesOf(filesAtBox)).toBeLessThanOrEqual(BOX_BYTE_BOUND);
        expect(filesAtBox.length).toBeLessThanOrEqual(BOX_FILE_BOUND);
        const texts = await Promise.all(filesAtBox.map((url) => readFile(new URL(url), "utf8")));
        expect(filesAtBox.filter((_url, index) => FS_IMPORT.test(texts[index] ?? ""))).toEqual([]);
        // No V8 flag before the box but the entry's reset of the shebang's semi-space sizes
        // to its default, which gives back the flag hash Node's cached code for its own modules
        // (`node:child_process`, `node:perf_hooks` …, which the box loads) was made under; any
        // other flag would make Node refuse that code (src/cli/v8-flags.ts). Nor after it: only
        // an MCP server over HTTP sets one (`--liftoff-only`, src/tools/mcp/connection.ts).
        expect(flagsAtBox).toEqual(["--max-semi-space-size=0 --min-semi-space-size=0"]);
        expect(flagsAfterBox).toEqual([]);
        // By the answer, each group was loaded: the checks above can fail.
        expect(FOR_AN_ANSWER.map((pattern) => matching(atEnd, pattern).length > 0)).toEqual(
          FOR_AN_ANSWER.map(() => true),
        );
      },
    );

    interactiveTest(
      "with a project config file, its schema and zod load before the box: the file is checked before anything is drawn",
      async ({ fixture }) => {
        await mkdir(join(fixture.repository, ".turnloop"));
        await writeFile(
          join(fixture.repository, ".turnloop", "config.json"),
          JSON.stringify({ maxTurns: 5 }),
        );
        const { atBox } = await modulesLoaded(fixture);
        expect(matching(atBox, /\bsrc\/session\/config\.ts$/)).toEqual(["src/session/config.ts"]);
        expect(matching(atBox, ZOD).length).toBeGreaterThan(20);
      },
    );
  },
);
