import { execFileSync } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as vitestTest } from "vitest";
import { resetBeforeEveryFile } from "./cleanups.js";
import { type CliResult, cleanEnvironment, runCli } from "./cli.js";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";
import type { Harness, HarnessOptions } from "./harness.js";
import { removeTree } from "./remove-tree.js";
import { makeHome } from "./test-home.js";

/** The options of one `turnloop` run through {@link CliFixtures.cli}; all default to the fixture's. */
export interface CliRunOptions {
  /** Default: the fixture's repository. */
  cwd?: string;
  /** Added to (and overriding) {@link CliFixtures.environment}'s variables. */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; absent: stdin is closed at once. */
  stdin?: string | Buffer;
  onStart?: Parameters<typeof runCli>[1]["onStart"];
  /** A bash command run first in the shell that becomes turnloop (`runCli`'s `prefix`). */
  prefix?: string;
}

/** One logged event of a session, as `events.jsonl` holds it. */
export interface LoggedEvent {
  type: string;
  data: Record<string, unknown>;
  /** ISO 8601, as the session wrote it. */
  timestamp: string;
}

/**
 * What most suites set up, one fresh copy per test, each made only when the test (or a fixture it
 * uses) names it, and removed after the test:
 * - `git` (an option, default `false`): whether `repository` is `git init`'d; a file sets it with
 *   `test.override({ git: true })` at its top level (reset before every file:
 *   test/support/each-file.ts) or in a `describe` of its own.
 * - `home`: a temporary folder, the run's `TURNLOOP_HOME` and `HOME`.
 * - `repository`: a temporary folder the CLI runs in.
 * - `model`: the fake model server (`test/support/fake-model-server.ts`), closed after the test.
 * - `environment(extra)`: a clean environment (`cleanEnvironment`) for that home and model
 *   (`openai-compatible:fake-model` at the fake server) plus `extra`.
 * - `cli(args, options)`: the built CLI (`runCli`) in the repository with that environment.
 * - `loggedEvents(sessionId)`: a session's `events.jsonl` in the home, parsed, in order.
 * - `openHarness(options)`: an in-process session on a fake model of its own
 *   (`test/support/harness.ts`'s `startHarness`), closed after the test with its home and cwd.
 */
export interface CliFixtures {
  git: boolean;
  home: string;
  repository: string;
  model: FakeModelServer;
  environment: (extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
  cli: (args: readonly string[], options?: CliRunOptions) => Promise<CliResult>;
  loggedEvents: (sessionId: string) => Promise<LoggedEvent[]>;
  openHarness: (options?: HarnessOptions) => Promise<Harness>;
}

/**
 * A clean environment (`cleanEnvironment`) for a turnloop run with `home` as `HOME` and
 * `TURNLOOP_HOME`, on `openai-compatible:fake-model` at `model`, plus `extra` (which wins).
 */
export function fakeModelEnvironment(
  home: string,
  model: FakeModelServer,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return cleanEnvironment({
    HOME: home,
    TURNLOOP_HOME: home,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${model.url}/v1`,
    ...extra,
  });
}

/** The options of {@link CliFixtures} a file may change with `test.override`, as each file starts. */
const defaultOptions = { git: false } as const;

/** vitest's `test` with {@link CliFixtures}. */
export const test = vitestTest.extend<CliFixtures>({
  git: [defaultOptions.git, { injected: false }],
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first parameter.
  home: async ({}, use) => {
    const home = await makeHome("turnloop-home-");
    try {
      await use(home);
    } finally {
      // A CLI still exiting may write its code cache there meanwhile (src/cli/code-cache.cts).
      await removeTree(home);
    }
  },
  repository: async ({ git }, use) => {
    const repository = await mkdtemp(join(tmpdir(), "turnloop-repo-"));
    try {
      if (git) {
        execFileSync("git", ["init", "-q"], { cwd: repository });
      }
      await use(repository);
    } finally {
      await removeTree(repository);
    }
  },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first parameter.
  model: async ({}, use) => {
    const model = await startFakeModelServer();
    try {
      await use(model);
    } finally {
      await model.close();
    }
  },
  environment: async ({ home, model }, use) => {
    await use((extra = {}) => fakeModelEnvironment(home, model, extra));
  },
  cli: async ({ repository, environment }, use) => {
    await use((args, options = {}) =>
      runCli(args, {
        cwd: options.cwd ?? repository,
        env: environment(options.env),
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        ...(options.onStart === undefined ? {} : { onStart: options.onStart }),
        ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      }),
    );
  },
  loggedEvents: async ({ home }, use) => {
    await use(async (sessionId) => {
      const text = await readFile(join(home, "session-state", sessionId, "events.jsonl"), "utf8");
      return text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as LoggedEvent);
    });
  },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its first parameter.
  openHarness: async ({}, use) => {
    const harnesses: Harness[] = [];
    try {
      await use(async (options) => {
        // Imported here: the child-process suites never load the in-process session.
        const { startHarness } = await import("./harness.js");
        const harness = await startHarness(options);
        harnesses.push(harness);
        return harness;
      });
    } finally {
      await Promise.all(harnesses.map((harness) => harness.close()));
    }
  },
});

// A file's top-level `test.override` changes `test` itself, which the next file of a worker gets
// when files share modules (vitest.config.ts): each file starts from the defaults again.
resetBeforeEveryFile(() => test.override(defaultOptions));

/**
 * The session id the CLI printed (`… session <uuid>` on stderr or the screen).
 * @throws when there is none, with the text, so the test's failure shows what was printed.
 */
export function printedSessionId(text: string): string {
  const match = /session ([0-9a-f-]{36})/.exec(text);
  if (match?.[1] === undefined) {
    throw new Error(`no session id in:\n${text}`);
  }
  return match[1];
}
