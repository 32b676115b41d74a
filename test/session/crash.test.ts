/**
 * A real writer process killed with SIGKILL at different moments: the log must load every time,
 * with at worst a torn tail, and the parent chain must survive each reopen.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { EventLog, readEventLog } from "../../src/session/event-log.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { PromptStops, type StoppablePrompt } from "../../src/session/session-model/prompt-stops.js";
import { makeTemporaryDirectory } from "./support.js";

const repositoryRoot = join(import.meta.dirname, "..", "..");

/**
 * Node 20 cannot run TypeScript, and the test must not depend on a prior build: bundles each
 * writer script with the source it imports (src/session, src/events, src/llm) into
 * `<directory>/<name>.mjs` with esbuild, packages left to the `node_modules` link (the log's reader
 * checks each event with zod: src/session/log-damage.ts).
 */
async function bundleWriters(directory: string, scripts: Record<string, string>): Promise<void> {
  await writeFile(join(directory, "package.json"), '{ "type": "module" }\n');
  await symlink(join(repositoryRoot, "node_modules"), join(directory, "node_modules"));
  for (const [name, contents] of Object.entries(scripts)) {
    await build({
      stdin: { contents, resolveDir: repositoryRoot, loader: "ts", sourcefile: `${name}.ts` },
      outfile: join(directory, `${name}.mjs`),
      bundle: true,
      format: "esm",
      platform: "node",
      packages: "external",
      logLevel: "error",
    });
  }
}

const WRITER_SCRIPT = `
import { EventLog } from "./src/session/event-log.js";
import { SessionWriter } from "./src/session/session-writer.js";

const { log, events } = await EventLog.open(process.argv[2], { create: true });
const writer = new SessionWriter(log, events.at(-1)?.id ?? null);
if (events.length === 0) {
  writer.write({ type: "session.start", data: { sessionId: "crash", version: 1, producer: "turnloop",
    producerVersion: "0", startTime: new Date().toISOString(), cwd: "/", model: "fake" } });
}
for (let count = 0; ; count += 1) {
  writer.write({ type: "user.message",
    data: { content: "café 😀 ".repeat(1 + (count % 40)) + count, source: "user" } });
  if (count % 64 === 0) {
    await log.flush();
    process.stdout.write("flushed\\n");
  } else {
    await new Promise((resolve) => setImmediate(resolve));
  }
}
`;

/**
 * A session of the file store whose turns are committed as checkpoints (as inside a prompt: the
 * listing metadata lags), each turn with ~9 KB of reply so that the metadata is refreshed now and
 * then; says `turn` after each turn's checkpoint.
 */
const STORE_WRITER_SCRIPT = `
import { FileSessionStore } from "./src/session/file-store.js";
import { SessionWriter } from "./src/session/session-writer.js";

const [home, sessionId] = process.argv.slice(2);
const appender = await new FileSessionStore(home).create(sessionId);
const writer = new SessionWriter(appender, null);
writer.write({ type: "session.start", data: { sessionId, version: 1, producer: "turnloop",
  producerVersion: "0", startTime: new Date().toISOString(), cwd: "/work", model: "fake" } });
writer.write({ type: "user.message", data: { content: "list me\\nafter a kill", source: "user" } });
await appender.commit();
for (let turn = 0; ; turn += 1) {
  writer.write({ type: "assistant.turn_start", data: { turnId: String(turn) } });
  writer.write({ type: "assistant.message",
    data: { messageId: "m" + turn, content: "reply ".repeat(1500) + turn, toolRequests: [],
    finishReason: "stop" } });
  writer.write({ type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } });
  await appender.commit({ checkpoint: true });
  process.stdout.write("turn\\n");
}
`;

/** Runs the writer and kills it once it has said `flushes` times that it flushed, mid-write. */
async function runAndKill(
  scriptPath: string,
  logPath: string,
  flushes: number,
  line = "flushed",
  ...moreArguments: string[]
): Promise<void> {
  const child = spawn(process.execPath, [scriptPath, logPath, ...moreArguments], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => {
    child.on("exit", (_code, signal) => resolve(signal));
  });
  await waitForLines(child, line, flushes);
  child.kill("SIGKILL");
  const signal = await exited;
  expect(signal, `writer ended on its own: ${stderr}`).toBe("SIGKILL");
}

/** Resolves once the child has written `count` lines `line` to stdout. */
function waitForLines(child: ChildProcess, line: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let partial = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      seen += lines.filter((text) => text === line).length;
      if (seen >= count) {
        resolve();
      }
    });
    child.on("exit", () => reject(new Error(`writer exited before ${count} lines "${line}"`)));
  });
}

function expectChained(events: readonly SessionEvent[]): void {
  expect(events[0]?.parentId).toBeNull();
  for (let index = 1; index < events.length; index += 1) {
    expect(events[index]?.parentId).toBe(events[index - 1]?.id);
  }
}

describe("crash safety", () => {
  // The writers are bundled once; each test writes its logs in its own folder (support.ts).
  let writers = "";
  let directory = "";
  beforeAll(async () => {
    writers = await mkdtemp(join(tmpdir(), "turnloop-crash-writers-"));
    await bundleWriters(writers, { writer: WRITER_SCRIPT, "store-writer": STORE_WRITER_SCRIPT });
  });
  afterAll(async () => {
    await rm(writers, { recursive: true, force: true });
  });
  beforeEach(async () => {
    directory = await makeTemporaryDirectory();
  });

  it("loads after every SIGKILL with at worst a torn tail", async () => {
    const logPath = join(directory, "session-state", "crash", "events.jsonl");
    const scriptPath = join(writers, "writer.mjs");
    let previousCount = 0;
    // Killed at different moments: after more and more flushes, amid the writes that follow.
    for (const [round, flushes] of [1, 2, 4, 7, 11].entries()) {
      await runAndKill(scriptPath, logPath, flushes);
      const contents = await readEventLog(logPath);
      expect(contents.repaired.length).toBeLessThanOrEqual(1);
      for (const note of contents.repaired) {
        expect(note.reason).toBe("torn_tail");
      }
      expect(contents.events.length).toBeGreaterThan(previousCount);
      expect(contents.events[0]?.type).toBe("session.start");
      expectChained(contents.events);
      previousCount = contents.events.length;
      if (round % 2 === 0) {
        // As a power loss mid-write would: the next writer must cut this before appending.
        const torn = Buffer.from('{"type":"user.message","data":{"content":"caf');
        await appendFile(logPath, Buffer.concat([torn, Buffer.from([0xc3])]));
      }
    }
    const { log, events } = await EventLog.open(logPath, { create: false });
    await log.close();
    const lines = (await readFile(logPath, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => (JSON.parse(line) as SessionEvent).id)).toEqual(
      events.map((event) => event.id),
    );
  });

  it("lists each killed session as its log has it, though the metadata lags mid-prompt", async () => {
    const home = join(directory, "listing-home");
    const scriptPath = join(writers, "store-writer.mjs");
    // Killed after more and more turns: before and after the metadata's first refreshes.
    const rounds = [1, 4, 9, 17];
    for (const [round, turns] of rounds.entries()) {
      await runAndKill(scriptPath, home, turns, "turn", `killed-${round}`);
    }
    const expected = [];
    for (const round of rounds.keys()) {
      const sessionId = `killed-${round}`;
      const eventsPath = join(home, "session-state", sessionId, "events.jsonl");
      const { events } = await readEventLog(eventsPath);
      const start = events[0];
      // The stop rule over the whole log: a prompt the kill left open lists as interrupted.
      const stops = new PromptStops<StoppablePrompt>();
      for (const event of events) {
        stops.apply(event, (given) => ({
          source: given.type === "user.message" ? given.data.source : "user",
        }));
      }
      expected.push({
        sessionId,
        cwd: "/work",
        model: "fake",
        startTime: start?.type === "session.start" ? start.data.startTime : "no session.start",
        lastActivity: events.at(-1)?.timestamp,
        turns: events.filter((event) => event.type === "assistant.turn_start").length,
        eventCount: events.length,
        firstPrompt: "list me after a kill",
        ...(stops.open ? { interrupted: true } : {}),
      });
    }
    const listed = await new FileSessionStore(home).list();
    const seen = listed
      .map(({ size: _size, eventsPath: _path, ...summary }) => summary)
      .sort((left, right) => left.sessionId.localeCompare(right.sessionId));
    expect(seen).toEqual(expected);
  });
});
