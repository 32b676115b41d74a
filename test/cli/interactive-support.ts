import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { chatMessages } from "../support/harness.js";
import { InteractiveTerminal } from "../support/interactive-terminal.js";

/** A fake model, a TURNLOOP_HOME and a small repository for one interactive test. */
export interface InteractiveFixture {
  server: FakeModelServer;
  home: string;
  repository: string;
  terminals: InteractiveTerminal[];
  environment(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Starts `turnloop …args` in a new tmux terminal in the repository, closed after the test. */
  open(
    args?: readonly string[],
    options?: { env?: NodeJS.ProcessEnv; columns?: number; rows?: number },
  ): InteractiveTerminal;
  /** Event types of a session's events.jsonl, in order. */
  eventTypes(sessionId: string): Promise<string[]>;
  events(sessionId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>>;
  /** The text of the last message of the `index`th model request (a user prompt or tool result). */
  lastMessage(index: number): string;
  close(): Promise<void>;
}

/**
 * vitest's `test` with a fresh {@link InteractiveFixture} per test (fake model, home, repository,
 * tmux terminals), closed after it: the one set-up every interactive test file shares.
 */
export const interactiveTest = test.extend<{ fixture: InteractiveFixture }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first parameter.
  fixture: async ({}, use) => {
    const fixture = await createFixture();
    try {
      await use(fixture);
    } finally {
      await fixture.close();
    }
  },
});

export async function createFixture(): Promise<InteractiveFixture> {
  const server = await startFakeModelServer();
  const home = await mkdtemp(join(tmpdir(), "turnloop-interactive-home-"));
  const repository = await mkdtemp(join(tmpdir(), "turnloop-interactive-repo-"));
  await writeFile(join(repository, "notes.md"), "# notes\nThe launch is on Tuesday.\n");
  execFileSync("git", ["init", "-q"], { cwd: repository });
  const terminals: InteractiveTerminal[] = [];
  const environment = (extra: NodeJS.ProcessEnv = {}) =>
    cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      TURNLOOP_MAX_RETRIES: "0",
      ...extra,
    });
  const events = async (sessionId: string) => {
    const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
    return text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  };
  return {
    server,
    home,
    repository,
    terminals,
    environment,
    open(args = [], options = {}) {
      const terminal = new InteractiveTerminal(args, {
        cwd: repository,
        env: environment(options.env),
        ...(options.columns === undefined ? {} : { columns: options.columns }),
        ...(options.rows === undefined ? {} : { rows: options.rows }),
      });
      terminals.push(terminal);
      return terminal;
    },
    events,
    async eventTypes(sessionId) {
      return (await events(sessionId)).map((event) => event.type);
    },
    lastMessage(index) {
      const message = chatMessages(server, index).at(-1);
      return typeof message?.content === "string" ? message.content : JSON.stringify(message);
    },
    async close() {
      for (const terminal of terminals) {
        terminal.close();
      }
      await server.close();
      await rm(home, { recursive: true, force: true });
      await rm(repository, { recursive: true, force: true });
    },
  };
}

/** Runs `turnloop -p prompt` in the fixture's repository, answered `answer`; returns its session id. */
export async function pastSession(
  fixture: InteractiveFixture,
  prompt: string,
  answer: string,
): Promise<string> {
  fixture.server.enqueue({ text: answer });
  const result = await runCli(["-p", prompt], {
    cwd: fixture.repository,
    env: fixture.environment(),
  });
  if (result.code !== 0) {
    throw new Error(`turnloop -p ${prompt} exited ${result.code}: ${result.stderr}`);
  }
  return printedSessionId(result.stderr);
}

/** The session id the CLI printed on exit. */
export function printedSessionId(screen: string): string {
  const match = /session ([0-9a-f-]{36})/.exec(screen);
  if (match?.[1] === undefined) {
    throw new Error(`no session id on the screen:\n${screen}`);
  }
  return match[1];
}

/** The input box is drawn: its two rules and the status line under them. */
export const INPUT_BOX = /─{20,}\n[^\n]*\n─{20,}\n.*fake-model/;
