import { execFileSync } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

/** A real session made by the CLI against the fake model, and where it lives. */
export interface RecordedSession {
  home: string;
  repository: string;
  sessionId: string;
  logPath: string;
  environment: NodeJS.ProcessEnv;
  /** Every event of the log, parsed. */
  events(): Promise<Array<{ type: string; data: Record<string, unknown>; timestamp: string }>>;
  remove(): Promise<void>;
}

function sessionIdOf(stderr: string): string {
  const match = /session ([0-9a-f-]{36})/.exec(stderr);
  if (match?.[1] === undefined) {
    throw new Error(`no session id in: ${stderr}`);
  }
  return match[1];
}

const usage = (input: number, output: number) => ({
  input,
  output,
  cacheRead: Math.floor(input / 2),
});

/**
 * Two prompts through `turnloop -p` (the second with `--resume`): a 500 that is retried, a `view`
 * that succeeds and one that fails, an allowed `edit`, a `bash` that is denied, and a plain
 * answer. Between the prompts a compaction pair is appended by hand in the shape turnloop writes
 * (`session.compaction_start {trigger, currentTokens, tokenLimit}` /
 * `session.compaction_complete {success, trigger, preCompactionTokens, …}`).
 */
export async function recordSession(): Promise<RecordedSession> {
  const server = await startFakeModelServer();
  const home = await makeHome("turnloop-view-home-");
  const repository = await mkdtemp(join(tmpdir(), "turnloop-view-repo-"));
  try {
    await mkdir(join(repository, "src"));
    await writeFile(join(repository, "src", "greet.ts"), 'export const greeting = "helo";\n');
    await writeFile(join(repository, "README.md"), "# greet\nSays hello.\n");
    execFileSync("git", ["init", "-q"], { cwd: repository });
    const environment = cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      TURNLOOP_RETRY_BASE_DELAY_MS: "5",
    });
    server.enqueue(
      { status: 500, body: { error: { message: "upstream overloaded" } } },
      {
        text: "Let me look at the code.",
        toolCalls: [
          { id: "call_view", name: "view", arguments: '{"path":"src/greet.ts"}' },
          { id: "call_missing", name: "view", arguments: '{"path":"src/missing.ts"}' },
        ],
        usage: usage(1200, 40),
      },
      {
        text: "Fixing the typo.",
        toolCalls: [
          {
            id: "call_edit",
            name: "edit",
            arguments: JSON.stringify({
              path: "src/greet.ts",
              old_str: '"helo"',
              new_str: '"hello"',
            }),
          },
        ],
        usage: usage(2600, 60),
      },
      {
        toolCalls: [
          { id: "call_bash", name: "bash", arguments: '{"command":"rm -rf build && npm test"}' },
        ],
        usage: usage(3900, 30),
      },
      {
        text: "Fixed the greeting typo in src/greet.ts; I could not run the tests.",
        usage: usage(4800, 25),
      },
    );
    const first = await runCli(["-p", "Fix the typo in the greeting", "--allow-tool", "edit"], {
      cwd: repository,
      env: environment,
    });
    if (first.code !== 0) {
      throw new Error(`turnloop -p failed: ${first.stderr}`);
    }
    const sessionId = sessionIdOf(first.stderr);
    const logPath = join(home, "session-state", sessionId, "events.jsonl");
    await appendCompaction(logPath);
    server.enqueue({ text: "You're welcome.", usage: usage(900, 8) });
    const second = await runCli(["-p", "Thanks!", "--resume", sessionId], {
      cwd: repository,
      env: environment,
    });
    if (second.code !== 0) {
      throw new Error(`turnloop -p --resume failed: ${second.stderr}`);
    }
    return {
      home,
      repository,
      sessionId,
      logPath,
      environment,
      async events() {
        const text = await readFile(logPath, "utf8");
        return text
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
      },
      async remove() {
        await removeTree(home);
        await removeTree(repository);
      },
    };
  } finally {
    await server.close();
  }
}

/** Appends a compaction pair (hand-written: see {@link recordSession}) after the last event. */
async function appendCompaction(logPath: string): Promise<void> {
  const lines = (await readFile(logPath, "utf8")).trim().split("\n");
  const last = JSON.parse(lines.at(-1) ?? "{}") as { id: string; timestamp: string };
  const at = Date.parse(last.timestamp);
  const start = {
    type: "session.compaction_start",
    data: { trigger: "threshold", currentTokens: 4825, tokenLimit: 6000 },
    id: "compaction-start-1",
    timestamp: new Date(at + 5).toISOString(),
    parentId: last.id,
  };
  const complete = {
    type: "session.compaction_complete",
    data: {
      success: true,
      trigger: "threshold",
      preCompactionTokens: 4825,
      postCompactionTokens: 850,
      messagesRemoved: 9,
      summaryContent: "The user asked to fix a typo in src/greet.ts; it is fixed; bash was denied.",
    },
    id: "compaction-complete-1",
    timestamp: new Date(at + 420).toISOString(),
    parentId: start.id,
  };
  await appendFile(logPath, `${JSON.stringify(start)}\n${JSON.stringify(complete)}\n`);
}
