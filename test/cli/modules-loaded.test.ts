import { isAscii } from "node:buffer";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { PRODUCER_VERSION } from "../../src/session/version.js";
import { BIN_PATH, CLI_PATH, runCli } from "../support/cli.js";
import { bytesOf, modulesOutsideBundle, sourceModules } from "../support/loaded-modules.js";
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
 * Of our own modules: the MCP client's (src/tools/mcp/servers.ts, connection.ts, tools.ts: 46 KB
 * of source, loaded once a session has a server to start, session/mcp-servers.ts) and the appender
 * that lets its lease go when idle (src/session/idle-lease-appender.ts: the SDK server's sessions
 * alone). Until session 40 both were in the `-p` run's largest script.
 */
// node:crypto: ids come from src/events/random-id.ts (loading it cost 12–15 M instructions).
const NOT_BEFORE_NEEDED =
  /^node:crypto$|@modelcontextprotocol|@pydantic\/genai-prices|(^|\/)node_modules\/(pg(-[a-z]+)?|tinyglobby|fdir|ignore)\/|@vscode\/ripgrep|^src\/tools\/mcp\/(servers|connection|tools)\.ts$|^src\/session\/idle-lease-appender\.ts$/;
/**
 * What the code loaded up to the first request of `-p` costs, counted as a run pays for it: the
 * bundle's files read ({@link BUNDLE_FILE_BOUND}: Node resolves, opens and reads each, and runs it
 * with its code cache or compiles it), their bytes ({@link BUNDLE_BYTE_BOUND}), and the modules
 * loaded from outside the bundle, Node's own, each loaded apart (9 in session 38: `node:fs`, …,
 * `node:module`; `node:crypto` alone cost 12–15 M instructions, events/random-id.ts). A source
 * module inside a bundle file costs its bytes alone: esbuild joins a file's ES modules into one
 * scope, with no wrapper or record for each (a CommonJS package's modules keep a `__commonJS`
 * wrapper each, inside the bytes). Until session 37 the bound was the count of source modules
 * (229: 173 of our own, 47 of packages and 9 of Node's; how it grew is in this file's git log), so a file split on its seam had to raise
 * it although the files read and their bytes stayed the same, and helpers were kept in files they
 * do not belong to (events/random-id.ts `derivedId`, llm/api-keys.ts `endpointOptions`,
 * tools/tool-support.ts `fileChange`; now events/derived-id.ts, llm/base-url.ts and
 * tools/file-change.ts); a package imported statically
 * still shows in the bytes (the MCP client's bundle file alone is 638 kB) or in the files read.
 */
const PROMPT_UNBUNDLED_MODULE_BOUND = 9;
/**
 * Modules loaded from outside the bundle (Node's own) when `acp` answers `initialize`: 5 in
 * session 38. Until then the bound counted source modules: 152 on 2026-12-01 once the session
 * stack loaded on the first session request, 30 in round 3, session 9, once a valid `initialize`
 * was answered before the ACP SDK and zod load (src/acp/start.ts; they load after the answer), 33
 * at the last; its history is in this file's git log. What the bundle holds is counted by its
 * files and their bytes ({@link BUNDLE_FILE_BOUND}, {@link BUNDLE_BYTE_BOUND}), as for `-p`.
 */
const ACP_INITIALIZE_UNBUNDLED_MODULE_BOUND = 5;
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
 * Bytes of the bundle files read (`main.js`, the script loader and the scripts of
 * `dist/cli/scripts/`) by the first request of `-p` and by the `initialize` answer of `acp`:
 * 1,493,765 and 131,502 in session 38, bounded at 1500 KiB and 132 KiB; `-p` 1,509,679 at the
 * start of session 40, 1,478,101 once the MCP client and the idle lease's appender loaded by
 * `import()` where a run needs them, 1,490,648 with the response's values read without a
 * `TransformStream` between them (src/llm/value-transform.ts, lock-keeping-stream.ts), bounded at
 * 1460 KiB; 1,496,806 in session 41 with the request body's JSON kept as bytes (3.1 KB:
 * llm/encoded-json.ts, llm/string-pieces.ts), one wording of durations (events/durations.ts),
 * the words for tool-call arguments that are not JSON (agent/invalid-arguments.ts) and the
 * terminal's sanitising of paths and tool names, bounded at 1465 KiB; in session 42 one reading
 * of a model error's own code and type for every wire (llm/error-kind.ts), each wire's base URL
 * rule (llm/api-keys.ts `wireBaseUrl`), the JSON result's uncached input, one redaction of a URL's
 * user part whatever it holds (llm/shown-values.ts, trial 42 F8) and a request body sent as pieces
 * (llm/request-body.ts): 1,506,683 bytes, bounded at 1473 KiB, and the ACP initialize's 136,709,
 * bounded at 134 KiB; in session 43 (lane tfb) the config files' stamp that has a session opened
 * after they changed read them again (session/session-runs.ts, trial 43 F1), `view_range`'s
 * checks and the file tools' words for a file-system refusal: 1,509,550, bounded at 1475 KiB;
 * with the session's other lanes merged, 1,516,589 bounded at 1482 KiB: a prompt left without an
 * end by a killed process tracked for its reopen (then session/open-prompt.ts; since session 44
 * the fold's session-model/prompt-stops.ts), a lost prompt's place in the history (agent/history-notes.ts), tag bodies escaped (events/tag-body.ts), the MCP names a
 * resumed session keeps, the read-only tools' commit point, the database reasons' redaction; in
 * session 44 a `LockKeepingStream` with `ReadableStream`'s members of its own, which makes its web
 * stream only when one needs it (llm/lock-keeping-stream.ts: two native objects a model request
 * fewer, bench/notes/turn44.md), 1,518,071 in lane perf, bounded at 1483 KiB; in lane trialfix
 * (1,517,343 before) a bare model name's error naming its source and the providers the model
 * catalogue lists it under (trial 44 F3), a URL's port named when it is what makes the URL
 * unparsable (events/url-port.ts, F4), OPENAI_BASE_URL named when an openai-compatible model lacks
 * an endpoint (F5): 1,521,699, and the ACP initialize's 137,802 (face-config.ts and
 * setting-words.ts use the port check there); a server's secret-looking `args` redacted where
 * config values are shown (llm/shown-values.ts, loaded at the ACP initialize): 138,589, bounded
 * at 136 KiB. With the session's lanes merged: 1,522,792, bounded at 1488 KiB. In session 45:
 * the writer keeps the stop rule's state and the session's name in the listing metadata
 * (session/listed-prompt.ts, `PromptStops.state` / `from`), so a listing tells a prompt left open
 * by a killed process without reading its log (+2.7 KB); a flag without its value under `sessions`
 * or `mcp` ends with the usage of the one action that reads it (cli/subcommands.ts, 0.4 KB of the
 * run chunk, loaded at the ACP initialize too); a `view_range` read through the editor asks for
 * its lines alone (tools/editor-text.ts, loaded only when an editor serves the file); the refusal
 * of a prompt whose system prompt and tools alone fill the window, with the tools the first
 * request offers (agent/compaction-guard.ts), and the mark of a cut output's tail that starts
 * inside a line, which every face reads (tools/command-output.ts `PARTIAL_LINE_MARK`) (+2.0 KB).
 * Merged: 1,529,201 and 139,537, bounded at 1494 KiB and 137 KiB. They differ by a few
 * bytes between checkouts: a CommonJS package's modules are keyed by their path. In session 46
 * (fixmodel), on every model request: the endpoint recorded with encrypted reasoning and checked
 * before it is sent back (llm/base-url.ts `endpointName`, llm/convert.ts), the refused key's
 * variable (llm/ai-sdk-provider.ts), a base URL's user:password as Basic on every wire
 * (llm/http-fetch.ts) (+1.2 KB, 1,530,396 here): bounded at 1495 KiB. The session's merge:
 * 1,531,095 (the other lanes: the usage fold's user requests and last call for the SDK's
 * metrics, session/usage-totals.ts; the loop's callback for a call not run, agent/tool-calls.ts;
 * no empty system prompt, llm/convert.ts): bounded at 1496 KiB. In session 47: on every model
 * request's failure path, a 404 the model API itself answered carries the model it has none of
 * (llm/http-status-words.ts `unknownModelOf`, llm/errors.ts), which the loop words as the face's
 * cure (llm/model-setting-names.ts `withUnknownModelCure`) (about 1.2 KB); main.ts's line for a
 * failed write to stdout (ENOSPC) and its stop for a signal before any face listens (+0.7 KB,
 * loaded by every face: the ACP initialize's 141,006, bounded at 138 KiB); the note of what a
 * stopped command left running outside its group (tools/bash.ts, command-process.ts, the session
 * model's reading); the token kinds of secret names (events/secrets.ts); `-p`'s stdin notice
 * (cli/stdin-attachment.ts); a sandbox-stopped command read as refused
 * (cli/permission-denials.ts); a tool call's arguments drawn whole and a `\r` that hides no
 * text (events/terminal-text.ts `argumentText`, `plainText`, `terminalText`), remote errors
 * sanitised in every mode, a long command's question kept within the screen, its middle cut
 * (cli/permission-preview.ts, permission-answers.ts `middleCut`): together 1,537,553 and 141,583,
 * bounded at 1502 KiB and 139 KiB.
 */
const BUNDLE_BYTE_BOUND = { prompt: 1502 * 1024, acpInitialize: 139 * 1024 };
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

/** The modules loaded so far from outside the bundle (Node's own), each once. */
function unbundled(beforeOutput = false): string[] {
  return modulesOutsideBundle(recorded(beforeOutput));
}

describe("modules loaded before they are needed (issue 26)", () => {
  test("-p with no MCP server and a common model: neither the MCP client nor the price catalogue before the first request", async () => {
    const atRequests: string[][] = [];
    const filesAtRequests: string[][] = [];
    const unbundledAtRequests: string[][] = [];
    await cli.promptDone("openai-chat:gpt-4.1", () => {
      atRequests.push(modulesLoaded());
      filesAtRequests.push(bundleFilesRead());
      unbundledAtRequests.push(unbundled());
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
    expect(bytesOf(filesAtRequests[0] ?? [])).toBeLessThanOrEqual(BUNDLE_BYTE_BOUND.prompt);
    // Node's own modules were seen (so the bound can fail), not too many of them.
    expect(unbundledAtRequests[0]).toContain("node:fs");
    expect(unbundledAtRequests[0]?.length).toBeLessThanOrEqual(PROMPT_UNBUNDLED_MODULE_BOUND);
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
      expect(unbundled(true)).toContain("node:fs");
      expect(unbundled(true).length).toBeLessThanOrEqual(ACP_INITIALIZE_UNBUNDLED_MODULE_BOUND);
      expect(bytesOf(bundleFilesRead(true))).toBeLessThanOrEqual(BUNDLE_BYTE_BOUND.acpInitialize);
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
