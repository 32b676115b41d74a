/**
 * Runs of the built CLI with a recorder of what it loads (issue 26): a fake model server, a home
 * and a working folder of their own per test, and the environment that preloads the recorder.
 */

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { cleanEnvironment, runCli } from "./cli.js";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";
import { removeTree } from "./remove-tree.js";
import { makeHome } from "./test-home.js";

export interface Recorder {
  /** The recorder module's path, preloaded with `--import`. */
  readonly path: string;
  /** The variable naming the file the recorder appends to, one line a module. */
  readonly logVariable: string;
  /** A word for the temporary folders' names. */
  readonly name: string;
}

export interface RecordedCli {
  readonly server: FakeModelServer;
  /** The working folder of the CLI's runs. */
  readonly directory: string;
  /** The file the recorder writes (in the run's home). */
  readonly log: string;
  /** The CLI's environment for `model` (a `provider:model` id) with the recorder preloaded. */
  environment(model: string): NodeJS.ProcessEnv;
  /**
   * Runs `-p "say done"` with `model`, the fake model answering "All done." (100 tokens in, 10
   * out; `atRequest` runs as the request arrives), and checks that the CLI exited 0 with that
   * answer after one request.
   */
  promptDone(model: string, atRequest?: () => void): Promise<void>;
}

/** Registers the per-test set-up and clean-up; the fields are usable inside tests. */
export function useRecordedCli(recorder: Recorder): RecordedCli {
  let started: { server: FakeModelServer; home: string; directory: string } | undefined;
  beforeEach(async () => {
    started = {
      server: await startFakeModelServer(),
      // Cold: these tests record what a first run loads and caches (test/support/test-home.ts).
      home: await makeHome(`turnloop-${recorder.name}-home-`, "cold"),
      directory: await mkdtemp(join(tmpdir(), `turnloop-${recorder.name}-cwd-`)),
    };
  });
  afterEach(async () => {
    await started?.server.close();
    // A CLI still exiting may write its code cache there meanwhile (src/cli/code-cache.cts).
    await removeTree(started?.home ?? "");
    await removeTree(started?.directory ?? "");
    started = undefined;
  });
  const ready = () => {
    if (started === undefined) {
      throw new Error("useRecordedCli: the fields are set in beforeEach; use them inside tests");
    }
    return started;
  };
  const environment = (model: string) => {
    const { server, home } = ready();
    return cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: model,
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "test-key",
      ANTHROPIC_API_KEY: "test-key",
      NODE_OPTIONS: `--import=${recorder.path}`,
      [recorder.logVariable]: join(home, "recorded.log"),
    });
  };
  return {
    get server() {
      return ready().server;
    },
    get directory() {
      return ready().directory;
    },
    get log() {
      return join(ready().home, "recorded.log");
    },
    environment,
    async promptDone(model, atRequest) {
      const { server, directory } = ready();
      server.setResponder(() => {
        atRequest?.();
        return { text: "All done.", usage: { input: 100, output: 10 } };
      });
      const result = await runCli(["-p", "say done"], {
        cwd: directory,
        env: environment(model),
      });
      expect({ code: result.code, stdout: result.stdout }).toEqual({
        code: 0,
        stdout: "All done.\n",
      });
      expect(server.requests).toHaveLength(1);
    },
  };
}
