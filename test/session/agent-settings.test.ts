import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { homedir } from "node:os";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SessionHost } from "../../src/session/host.js";
import { type TemporaryHost, temporaryHost } from "../support/temporary-host.js";

// Issue 26 figure 7d: a server resolved the links of each session's folder and of the home folder
// at every prompt of every session (session/agent-settings.ts `folderSpellings`); the answers are
// now read once per session, as the run config's rules are anchored once per run.

let host: SessionHost;
let temporary: TemporaryHost;

beforeEach(async () => {
  temporary = await temporaryHost("turnloop-agent-settings-");
  ({ host } = temporary);
});

afterEach(() => temporary.remove());

/** The paths given to `fs.realpathSync` while `run` runs (Node's own function, counted). */
function realpathsDuring(run: () => void): string[] {
  const asked: string[] = [];
  const realpathSync = fs.realpathSync;
  const counting = Object.assign(
    (path: fs.PathLike, options?: fs.EncodingOption) => {
      asked.push(String(path));
      return realpathSync(path, options);
    },
    { native: realpathSync.native },
  );
  fs.realpathSync = counting as typeof fs.realpathSync;
  syncBuiltinESMExports();
  try {
    run();
  } finally {
    fs.realpathSync = realpathSync;
    syncBuiltinESMExports();
  }
  return asked;
}

describe("a session's permission gate", () => {
  test("resolves the links of the session's folder and of the home folder once per session, not at every prompt", async () => {
    const first = await host.create(host.config.cwd.value, "openai-compatible:fake-model");
    const second = await host.create(host.config.cwd.value, "openai-compatible:fake-model");
    const asked = realpathsDuring(() => {
      for (let prompt = 0; prompt < 3; prompt++) {
        host.permissionGate(first, {});
        host.permissionGate(second, {});
      }
    });
    const cwd = host.config.cwd.value;
    expect(asked.sort()).toEqual([cwd, cwd, homedir(), homedir()].sort());
  });
});
