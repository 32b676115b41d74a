import { isAscii } from "node:buffer";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { PRODUCER_VERSION } from "../../src/session/version.js";
import { BIN_PATH, CLI_PATH, runCli } from "../support/cli.js";
import { sourceModules } from "../support/loaded-modules.js";
import { useRecordedCli } from "../support/recorded-cli.js";

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

/**
 * Issue 26: nothing is loaded before it is needed. The built CLI runs with a recorder of every
 * module it loads (test/support/module-recorder.mjs); the modules loaded by the time the first
 * model request arrives (`-p`) or the `initialize` answer is written (`acp`) are checked by name
 * and by count. The CLI is bundled (scripts/bundle.mjs): a file it reads stands for the source
 * modules bundled into it, as `dist/cli/chunks/inputs.json` lists them. Counts, never times.
 */

const RECORDER = fileURLToPath(new URL("../support/module-recorder.mjs", import.meta.url));
/** Marks the first stdout write in the recorder's file (test/support/first-output-marker.mjs). */
const OUTPUT_MARKER = fileURLToPath(new URL("../support/first-output-marker.mjs", import.meta.url));
/** The line it writes. */
const FIRST_OUTPUT = "-- first stdout write";
/**
 * Packages that only some runs need: the MCP client, the price catalogue, the PostgreSQL client,
 * ripgrep (the grep tool's binary, found when its package loads: at the first search), and the
 * searches' `tinyglobby`, `fdir` and `ignore` (src/tools/gitignore.ts: at the first search too).
 */
// node:crypto: ids come from src/events/random-id.ts (loading it cost 12–15 M instructions).
const NOT_BEFORE_NEEDED =
  /^node:crypto$|@modelcontextprotocol|@pydantic\/genai-prices|(^|\/)node_modules\/(pg(-[a-z]+)?|tinyglobby|fdir|ignore)\/|@vscode\/ripgrep/;
/**
 * Unique modules up to the first request of `-p`: 230 on 2026-12-01 once the store port, the fold
 * and the run config landed as modules of their own (about 110 of them zod's and the AI SDK's),
 * 241 once the permission prefix rule and the config's key suggestions did, 252 with the
 * permission modes, the sandbox's policy names and saving a session at its first prompt, with room
 * for a few small modules of our own; a static import of a package (the MCP client alone was 17
 * modules) goes past it. 193 on 2026-12-02 once the bundle kept zod's English messages alone
 * (scripts/bundle.mjs: 63 locale modules fewer); 202 later that day once three files split on
 * their seams (permissions/rule-syntax.ts, session/event-log-reading.ts, session/resume-fold.ts);
 * 208 in session 7 once six more files split on their seams, no package added
 * (llm/model-attempt.ts, llm/sse-event-transform.ts, agent/tool-specifications.ts,
 * session/config-paths.ts, tools/file-lines.ts, tools/line-diff.ts); 210 with -p's handling of
 * SIGTERM and SIGHUP (cli/prompt-stops.ts, session/termination-signals.ts); 211 with
 * llm/header-value.ts (the API key's check, shared with the fetch); 212 with
 * session/prompt-attachments.ts (how the faces open attachments, which titles leave out). 215 in
 * session 8: @vscode/ripgrep loads at the first search (one fewer), and four more of our own:
 * cli/permission-flags.ts (contradicting flags are a usage error), cli/prompt-totals.ts (split
 * from the terminal renderer), llm/first-response.ts (one-time work done while the first request
 * waits for its answer) and session/database-url.ts (the password kept out of the lock's
 * holder command; in session 36 merged into llm/shown-values.ts, the one redaction, which the
 * lock's holder command now goes through whole). 216 in
 * session 9 with tools/input-json-schemas.ts (the built-in tools' input schemas as JSON Schema,
 * written at build time: zod's converter no longer runs before the first request); 213 once
 * `tinyglobby`, `fdir` and `ignore` loaded at the first search (src/tools/gitignore.ts), the
 * bound lowered with them. 215 (the bound, not raised) in session 10 with cli/subcommands.ts:
 * every subcommand's usage in one table, for its usage errors; the numeric flags' ranges went
 * into cli/argument-flags.ts beside FLAGS rather than a module of their own (216 was over).
 * 216 in session 11 with cli/event-notes.ts: the retry and compaction lines `-p` and the
 * interactive face wrote each in their own words, now one module both faces read (30 lines in
 * the same bundle chunk as the renderer; the files read stay the same). 218 in session 12 with
 * session/storage-error.ts (a store's failed write names its file or database, and the prompt is
 * stored before the first request) and session/session-locked-error.ts (the lock refusal, split
 * from session-store.ts, which it took past 400 lines); the bundle adds no file for them. 221
 * the same session when the bundle became scripts run with V8's code cache: the loader itself
 * (dist/cli/code-cache.cjs), and `node:fs` and `node:module`, loaded before too but only now
 * seen: the scripts `require` them, where the ES modules' imports went unrecorded (the recorder
 * had imported both first). 219 in session 13: `node:readline` loads when a question is asked
 * (cli/terminal-permission.ts, cli/mcp-trust-question.ts) and `node:tty` only to tell whether a
 * character device on stdin is a terminal (cli/prompt-input.ts), so a run that asks nothing with
 * stdin a pipe loads neither (222 seen; test/cli/prompt-io.test.ts checks Node's own list; 218
 * before the permission rules' shell-environment.ts, git-aliases.ts and shell-redirects.ts).
 * 225 in session 14: `auto`'s question about edits where git finds hooks and config
 * (permissions/permission-decision.ts reads tools/sandbox/configured-places.ts, which reads
 * git-folders.ts and real-paths.ts); they share the permissions' bundle chunk, so no file is
 * added to what `-p` reads. 226 in session 15 with session/small-file.ts: the lock's, its
 * breaker's and the listing metadata's create (through the thread pool) and write and close
 * (synchronous), shared by lock-file.ts, session-lock.ts, session-metadata.ts and event-log.ts
 * (bench/notes/perf.md); in the session store's bundle chunk, so no file is added either.
 * Still 226 in session 16: the command runners and file-writing options grew existing files
 * (shell-redirects.ts was renamed shell-side-effects.ts), no module added. 227 in session 18:
 * permissions/program-runners.ts (package runners, xargs's input, shells and `trap`, moved out of
 * shell-wrappers.ts and shell-side-effects.ts, both at their 400 lines) and
 * permissions/shell-values.ts (what bash does with a variable's value) were added, and
 * permissions/rule-syntax.ts merged into permission-mode.ts (both the permission settings as
 * written, read without the matching code); all in the permissions' bundle chunk, so no file is
 * added to what `-p` reads. 228 in session 26 with llm/kept-tools.ts (a request's `tools`
 * serialised once per tool set: bench/notes/turn26.md), in the model request's bundle chunk, so
 * no file is added either; the MCP tools' unique names went into tools/mcp/tools.ts and the retry
 * policy's split of llm/errors.ts into header-value.ts and ai-sdk-provider.ts rather than
 * modules of their own. Still 228 in session 27, when four files at their 400 lines split: the
 * numeric flags' ranges left cli/argument-flags.ts for cli/numeric-settings.ts while
 * cli/permission-flags.ts (35 lines) joined argument-flags.ts's other checks of the flags;
 * `HeaderList` left llm/http-response.ts for header-value.ts, renamed llm/http-headers.ts; the
 * loop's types (agent/loop-types.ts) and the shell analysis's (permissions/shell-analysis.ts)
 * are types only, which the bundle holds no code of. 229 in session 37 with llm/image-data.ts
 * (whether a prompt's image data is base64: the history checks each image it folds, and the ACP
 * and SDK faces refuse one that is not); it joins an existing bundle chunk (the file bound holds).
 * 230 in session 38 with tools/config-file-text.ts: tools/project-file.ts, at its 400 lines once
 * its two readers shared one sequence, split on its seam (the reader; config files' text and
 * JSON syntax messages), in the same bundle chunk (the file bound holds).
 */
const PROMPT_MODULE_BOUND = 230;
/**
 * Unique modules when `acp` answers `initialize`: 152 on 2026-12-01 once the session stack loaded
 * on the first session request (about 110 of them zod's and the ACP SDK's, which parses every
 * message with zod), with room for a few small modules of our own. The session stack alone is
 * about 90 modules. 100 on 2026-12-02 once the bundle kept zod's English messages alone. 30 in
 * round 3, session 9, once a valid `initialize` was answered before the ACP SDK and zod load
 * (src/acp/start.ts; they load after the answer): the argument parser, the run config, the
 * first-line reader and four `node:` modules, with room for a few small modules of our own. 31
 * → 30 in session 10 once run.ts no longer imported `node:v8` (its flags are set after the
 * answer; main.ts takes it by `process.getBuiltinModule`, which the recorder does not see).
 */
const ACP_INITIALIZE_MODULE_BOUND = 33;
/** The ACP SDK and zod, which `acp` loads only once `initialize` is answered. */
const ACP_SDK_OR_ZOD = /(^|\/)node_modules\/(@agentclientprotocol\/sdk|zod)\//;
/**
 * Files of the bundle (`dist/cli/`, `main.js` included) read by the first request of `-p`, the
 * `initialize` answer and the `session/new` answer of `acp`: 54, 29 and 53 on 2026-12-02 with
 * esbuild's chunks as they were (one for each set of lazy entry points sharing code); 14, 8 and 12
 * once the chunks that the same kinds of run load were merged into one file each and the entry
 * files that only re-exported a chunk were taken out (scripts/merge-chunks.mjs); `initialize`
 * 7 once it was answered before the ACP SDK loads (src/acp/start.ts). Node's loader resolves,
 * opens and reads each one. Counts, never times. One more each in session 12 once the bundle ran
 * as scripts with V8's code cache (src/cli/code-cache.cts): `main.js` became three files, itself,
 * the loader and main.ts's script. `initialize` 10 in session 26: events/random-id.ts, once in
 * the group of the run config's modules, is loaded by other runs than they are since the model
 * request's kept messages and tools import llm/huge-messages.ts (which imports it), so it is a
 * chunk of its own; it had joined esbuild's runtime helpers (the chunk that imports
 * `node:module`), whose `require` banner the merge renamed, so `acp` loaded `node:module` before
 * answering and the file lost its code cache: that chunk is never merged now
 * (scripts/merge-chunks.mjs `mergeableFiles`).
 */
const BUNDLE_FILE_BOUND = { prompt: 17, acpInitialize: 10, acpSession: 15 };
/**
 * Modules no run loads (scripts/bundle.mjs): zod 3 itself (the AI SDK gets its kind names alone,
 * in a module named `zod3-kinds:…`), and a second, unbundled picomatch, which fdir used to require
 * from node_modules beside the bundled one.
 */
const NEVER_LOADED = /^file:.*\/node_modules\/(zod\/v3|picomatch)\//;
/** zod's messages in languages other than English, which no run uses (scripts/bundle.mjs). */
const ZOD_OTHER_LOCALES = /zod\/v4\/locales\/(?!en\.js$)/;
/** The session stack: the loop, the session host and store, the tools, the ACP session. */
const SESSION_STACK =
  /\bsrc\/(agent\/|session\/(host|session|file-store)\.ts|tools\/index\.ts|acp\/acp-session\.ts)/;

const cli = useRecordedCli({
  path: RECORDER,
  logVariable: "TURNLOOP_TEST_MODULE_LOG",
  name: "modules",
});

/**
 * The recorder's lines so far; with `beforeOutput`, only those before the first stdout write
 * (test/support/first-output-marker.mjs, when preloaded).
 */
function recorded(beforeOutput = false): string[] {
  let text = "";
  try {
    text = readFileSync(cli.log, "utf8");
  } catch {
    // Nothing loaded yet.
  }
  const lines = text.split("\n").filter((line) => line !== "");
  const marker = lines.indexOf(FIRST_OUTPUT);
  return beforeOutput && marker !== -1 ? lines.slice(0, marker) : lines;
}

/** The unique modules loaded so far (test/support/loaded-modules.ts). */
function modulesLoaded(beforeOutput = false): string[] {
  return sourceModules(recorded(beforeOutput).filter((line) => line !== FIRST_OUTPUT));
}

/** The files of the bundle read so far, each once (its ES modules are recorded as they load). */
function bundleFilesRead(beforeOutput = false): string[] {
  const bundle = `${pathToFileURL(dirname(CLI_PATH)).href}/`;
  return [...new Set(recorded(beforeOutput).filter((url) => url.startsWith(bundle)))];
}

describe("modules loaded before they are needed (issue 26)", () => {
  test("-p with no MCP server and a common model: neither the MCP client nor the price catalogue before the first request", async () => {
    const atRequests: string[][] = [];
    const filesAtRequests: string[][] = [];
    await cli.promptDone("openai-chat:gpt-4.1", () => {
      atRequests.push(modulesLoaded());
      filesAtRequests.push(bundleFilesRead());
    });
    const [first] = atRequests;
    expect(atRequests).toHaveLength(1);
    // The recorder saw the bundle's files (so the bound can fail), not too many of them.
    expect(filesAtRequests[0]).toContain(pathToFileURL(CLI_PATH).href);
    expect(filesAtRequests[0]?.length).toBeLessThanOrEqual(BUNDLE_FILE_BOUND.prompt);
    // Each script it ran holds ASCII alone: V8 keeps a script holding one other character in
    // memory at two bytes a character (scripts/code-cache-scripts.mjs; a regular expression is
    // where esbuild cannot escape one: bench/notes/start21.md).
    const scripts = (filesAtRequests[0] ?? []).filter((url) => url.includes("/dist/cli/scripts/"));
    expect(scripts.length).toBeGreaterThan(5);
    expect(scripts.filter((url) => !isAscii(readFileSync(fileURLToPath(url))))).toEqual([]);
    expect(first?.filter((url) => NOT_BEFORE_NEEDED.test(url))).toEqual([]);
    expect(first?.length).toBeLessThanOrEqual(PROMPT_MODULE_BOUND);
    // zod was loaded (the tools' schemas), with its English messages only.
    expect(first?.some((url) => url.endsWith("node_modules/zod/v4/locales/en.js"))).toBe(true);
    expect(first?.filter((url) => ZOD_OTHER_LOCALES.test(url))).toEqual([]);
    // The provider was loaded (so the check below can fail): zod 3's kind names, not zod 3.
    expect(first?.filter((url) => url.includes("zod/v3/"))).toEqual([
      expect.stringMatching(/^zod3-kinds:.*zod\/v3\/types\.js$/),
    ]);
    expect(first?.filter((url) => NEVER_LOADED.test(url))).toEqual([]);
    // No command or search ran: child processes are not needed (the tools load them with the first).
    expect(first).not.toContain("node:child_process");
    // The reply's usage was priced, so the catalogue was loaded after the request, and the
    // recorder saw it (its CommonJS build, through require): the check above can fail.
    expect(modulesLoaded().filter((url) => url.includes("@pydantic/genai-prices"))).toEqual([
      expect.stringMatching(/genai-prices\/dist\/index\.cjs$/),
    ]);
  });

  test("-p with a model the catalogue cannot know (an OpenAI-compatible server's) never loads the price catalogue", async () => {
    await cli.promptDone("openai-compatible:my-own-model");
    // Its context window and its reply's price were asked (the run ends), answered "unknown" by
    // the catalogue's name tests (src/llm/catalogue-name-clauses.ts) without the catalogue.
    const loaded = modulesLoaded();
    expect(loaded).toContain("src/llm/catalogue-name-clauses.ts");
    expect(loaded.filter((url) => url.includes("@pydantic/genai-prices"))).toEqual([]);
  });

  test("--version loads nothing but the entry point (and, from main.js, the script loader); --help loads the argument parser (so the check can fail)", async () => {
    const version = await runCli(["--version"], {
      cwd: cli.directory,
      env: cli.environment("openai-chat:gpt-4.1"),
    });
    const atVersion = modulesLoaded().filter((url) => !url.startsWith("node:"));
    // main.js runs main.ts's script through src/cli/code-cache.cts, which answers it.
    const loader = pathToFileURL(join(dirname(CLI_PATH), "code-cache.cjs")).href;
    // This home has no code cache yet: at exit the loader writes main.ts's with its writer
    // (src/cli/code-cache-writer.cts), which a run that takes every cache never loads.
    const writer = pathToFileURL(join(dirname(CLI_PATH), "code-cache-writer.cjs")).href;
    expect({ code: version.code, stdout: version.stdout, loaded: atVersion }).toEqual({
      code: 0,
      stdout: `${PACKAGE_VERSION}\n`,
      loaded: ["src/cli/main.ts", loader, writer],
    });
    // The bin (dist/cli/turnloop.cjs) answers it alone too, with its own copy of the version.
    const binVersion = await runCli(["--version"], {
      cwd: cli.directory,
      env: cli.environment("openai-chat:gpt-4.1"),
      file: BIN_PATH,
    });
    expect({
      code: binVersion.code,
      stdout: binVersion.stdout,
      loaded: modulesLoaded().filter((url) => !url.startsWith("node:")),
    }).toEqual({
      code: 0,
      stdout: `${PACKAGE_VERSION}\n`,
      loaded: ["src/cli/main.ts", loader, writer, pathToFileURL(BIN_PATH).href],
    });
    // The entry points' copies of the version (kept there so nothing else loads) are the
    // package's, as is the one the faces announce.
    expect(PRODUCER_VERSION).toBe(PACKAGE_VERSION);
    const help = await runCli(["--help"], {
      cwd: cli.directory,
      env: cli.environment("openai-chat:gpt-4.1"),
    });
    expect(help.code).toBe(0);
    expect(modulesLoaded()).toContain("src/cli/arguments.ts");
  });

  test("acp answers initialize before the session stack loads, and loads it for session/new", async () => {
    const env = cli.environment("openai-chat:gpt-4.1");
    const agent = spawn(process.execPath, [CLI_PATH, "acp"], {
      cwd: cli.directory,
      // The SDK loads right after the answer: what counts is what loaded before it was written.
      env: { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ""} --import=${OUTPUT_MARKER}` },
    });
    const closed = new Promise((resolve) => agent.once("close", resolve));
    const lines = readLines(agent);
    try {
      send(agent, 1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const answer = await lines.next();
      const atAnswer = modulesLoaded(true);
      expect(JSON.parse(answer)).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        result: { protocolVersion: 1 },
      });
      expect(atAnswer.filter((url) => NOT_BEFORE_NEEDED.test(url))).toEqual([]);
      expect(atAnswer.filter((url) => SESSION_STACK.test(url))).toEqual([]);
      expect(atAnswer.filter((url) => ACP_SDK_OR_ZOD.test(url))).toEqual([]);
      // run.ts does not import `node:v8` (its flags are set after the answer: `setV8Flags`; the
      // entry's flag reset takes it by `process.getBuiltinModule`, which is not recorded).
      expect(atAnswer).not.toContain("node:v8");
      expect(atAnswer.length).toBeLessThanOrEqual(ACP_INITIALIZE_MODULE_BOUND);
      expect(recorded().includes(FIRST_OUTPUT)).toBe(true);
      expect(bundleFilesRead(true).length).toBeLessThanOrEqual(BUNDLE_FILE_BOUND.acpInitialize);
      expect(atAnswer.filter((url) => ZOD_OTHER_LOCALES.test(url))).toEqual([]);
      // The first session request loads the stack (so the check above can fail), still
      // without the MCP client: no server is configured.
      send(agent, 2, "session/new", { cwd: cli.directory, mcpServers: [] });
      expect(JSON.parse(await lines.next())).toMatchObject({ id: 2, result: {} });
      const atSession = modulesLoaded();
      // The SDK loaded after the answer (so the check above can fail).
      expect(atSession.filter((url) => ACP_SDK_OR_ZOD.test(url)).length).toBeGreaterThan(5);
      expect(bundleFilesRead().length).toBeLessThanOrEqual(BUNDLE_FILE_BOUND.acpSession);
      expect(atSession.filter((url) => SESSION_STACK.test(url)).length).toBeGreaterThan(5);
      expect(atSession.filter((url) => NOT_BEFORE_NEEDED.test(url))).toEqual([]);
      // The tools' file finder (tinyglobby, fdir) uses the bundled picomatch, and only it.
      expect(
        atSession.filter((url) => url.includes("node_modules/picomatch/")).length,
      ).toBeGreaterThan(0);
      expect(atSession.filter((url) => NEVER_LOADED.test(url))).toEqual([]);
    } finally {
      // stdin ending closes the connection; the agent exits.
      agent.stdin.end();
      await closed;
    }
  });
});

function send(
  agent: ChildProcessWithoutNullStreams,
  id: number,
  method: string,
  params: unknown,
): void {
  agent.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
}

/** The agent's stdout line by line: `next()` resolves with the next line not read yet. */
function readLines(agent: ChildProcessWithoutNullStreams): { next(): Promise<string> } {
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let partial = "";
  agent.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      const reader = waiting.shift();
      if (reader === undefined) {
        lines.push(line);
      } else {
        reader.resolve(line);
      }
    }
  });
  agent.on("close", (code) => {
    for (const reader of waiting.splice(0)) {
      reader.reject(new Error(`the agent exited (${code}) before answering`));
    }
  });
  return {
    next: () => {
      const line = lines.shift();
      if (line !== undefined) {
        return Promise.resolve(line);
      }
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}
