import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "../support/cli.js";
import { chatMessages, startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import {
  test as cliTest,
  fakeModelEnvironment,
  type LoggedEvent,
  printedSessionId,
} from "../support/fixtures.js";
import { InteractiveTerminal } from "../support/interactive-terminal.js";
import { removeTree } from "../support/remove-tree.js";
import { makeHome } from "../support/test-home.js";

/** A fake model, a TURNLOOP_HOME and a small repository for one interactive test. */
export interface InteractiveFixture {
  server: FakeModelServer;
  home: string;
  repository: string;
  terminals: InteractiveTerminal[];
  environment(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Starts `turnloop …args` in a new tmux terminal in the repository, closed after the test. */
  open(args?: readonly string[], options?: TerminalOptions): InteractiveTerminal;
  /** {@link InteractiveFixture.open}, resolved once the input box is drawn ({@link INPUT_BOX}). */
  openReady(args?: readonly string[], options?: TerminalOptions): Promise<InteractiveTerminal>;
  /** Event types of a session's events.jsonl, in order. */
  eventTypes(sessionId: string): Promise<string[]>;
  events(sessionId: string): Promise<LoggedEvent[]>;
  /** The text of the last message of the `index`th model request (a user prompt or tool result). */
  lastMessage(index: number): string;
  close(): Promise<void>;
}

/** The size and extra environment of one terminal. */
export interface TerminalOptions {
  env?: NodeJS.ProcessEnv;
  columns?: number;
  rows?: number;
  /** Where the CLI's stderr and exit code are written (InteractiveTerminal's `recordIn`). */
  recordIn?: string;
  /** A file whose making starts the CLI (InteractiveTerminal's `startWhen`). */
  startWhen?: string;
}

/**
 * vitest's `test` with a fresh {@link InteractiveFixture} per test, made of the shared fixtures
 * (`test/support/fixtures.ts`: home, git repository, fake model): the one set-up every
 * interactive test file shares.
 */
export const interactiveTest = cliTest.extend<{ fixture: InteractiveFixture }>({
  fixture: async ({ home, repository, model, loggedEvents }, use) => {
    const fixture = await assembleFixture(model, home, repository, loggedEvents);
    try {
      await use(fixture);
    } finally {
      await fixture.close();
    }
  },
});
interactiveTest.override({ git: true });

/** A fixture of its own (fake model, home, repository), for a file that shares one across tests. */
export async function createFixture(): Promise<InteractiveFixture> {
  const server = await startFakeModelServer();
  const home = await makeHome("turnloop-interactive-home-");
  const repository = await mkdtemp(join(tmpdir(), "turnloop-interactive-repo-"));
  execFileSync("git", ["init", "-q"], { cwd: repository });
  const events = async (sessionId: string) => {
    const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
    return text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as LoggedEvent);
  };
  const fixture = await assembleFixture(server, home, repository, events);
  return {
    ...fixture,
    async close() {
      await fixture.close();
      await server.close();
      // A CLI still exiting may write its code cache there meanwhile (src/cli/code-cache.cts).
      await removeTree(home);
      await removeTree(repository);
    },
  };
}

/** The fixture's methods over its parts; `close` closes its terminals only. */
async function assembleFixture(
  server: FakeModelServer,
  home: string,
  repository: string,
  events: (sessionId: string) => Promise<LoggedEvent[]>,
): Promise<InteractiveFixture> {
  await writeFile(join(repository, "notes.md"), "# notes\nThe launch is on Tuesday.\n");
  const terminals: InteractiveTerminal[] = [];
  const environment = (extra: NodeJS.ProcessEnv = {}) =>
    fakeModelEnvironment(home, server, { TURNLOOP_MAX_RETRIES: "0", ...extra });
  const open = (args: readonly string[] = [], options: TerminalOptions = {}) => {
    const terminal = new InteractiveTerminal(args, {
      cwd: repository,
      env: environment(options.env),
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.rows === undefined ? {} : { rows: options.rows }),
      ...(options.recordIn === undefined ? {} : { recordIn: options.recordIn }),
      ...(options.startWhen === undefined ? {} : { startWhen: options.startWhen }),
    });
    terminals.push(terminal);
    return terminal;
  };
  return {
    server,
    home,
    repository,
    terminals,
    environment,
    open,
    async openReady(args, options) {
      const terminal = open(args, options);
      await terminal.waitFor(INPUT_BOX);
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

/** The session id the CLI printed (on exit, for the interactive screen). */
export { printedSessionId };

/**
 * Ends the session as a user does at an idle prompt, with Ctrl-D; expects exit code 0 and answers
 * the session id the CLI printed on exit (from the last 500 rows of the pane).
 */
export async function exitWithCtrlD(terminal: InteractiveTerminal): Promise<string> {
  terminal.key("C-d");
  expect((await terminal.exited()).code).toBe(0);
  return printedSessionId(await terminal.screen(500));
}

/**
 * The rows of `screen` that hold something, as a test compares them: the session id and the
 * fixture's repository named as `<id>` and `<repository>`, each rule of the input box as `───`.
 */
export function shownRows(
  screen: string,
  fixture: Pick<InteractiveFixture, "repository">,
): string[] {
  return screen
    .replace(/session [0-9a-f-]{36}/, "session <id>")
    .replace(fixture.repository, "<repository>")
    .split("\n")
    .map((row) => row.trimEnd().replace(/─{20,}/, "───"))
    .filter((row) => row !== "");
}

/** The input box is drawn: its two rules and the status line under them. */
export const INPUT_BOX = /─{20,}\n[^\n]*\n─{20,}\n.*fake-model/;

/** A model reply with one `edit` call. */
export const editCall = (id: string, path: string, from: string, to: string) => ({
  toolCalls: [
    { id, name: "edit", arguments: JSON.stringify({ path, old_str: from, new_str: to }) },
  ],
});

/** `turnloop -p` in `cwd` whose model makes `call`: the tool result it got back. */
export async function editThroughPrompt(
  fixture: InteractiveFixture,
  cwd: string,
  call: ReturnType<typeof editCall>,
): Promise<string> {
  fixture.server.enqueue(call, { text: "Done." });
  const result = await runCli(["-p", "edit it"], { cwd, env: fixture.environment() });
  expect(result.code).toBe(0);
  const tool = chatMessages(fixture.server, -1).find((message) => message.role === "tool");
  return String(tool?.content);
}

/** A folder with an `npx` that prints its arguments: the test runs no package from a registry. */
export async function fakeNpx(fixture: InteractiveFixture): Promise<NodeJS.ProcessEnv> {
  const bin = join(fixture.home, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "npx"), '#!/bin/sh\necho "ran npx $*"\n');
  await chmod(join(bin, "npx"), 0o755);
  return { PATH: `${bin}:${process.env.PATH ?? ""}` };
}
