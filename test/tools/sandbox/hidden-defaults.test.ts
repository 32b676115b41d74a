/**
 * The credential places hidden by default (src/tools/sandbox/policy.ts `DEFAULT_HIDDEN_PATHS`)
 * beyond issue 23's, which the session-27 and session-34 trials' confined commands read (GitHub's
 * CLI, Cargo; Gemini CLI's and Copilot's tokens, Terraform's, sops' age keys, browser profiles),
 * also through a symbolic link planted in the workspace; and the default `~/.turnloop` while
 * `TURNLOOP_HOME` points elsewhere. Real bubblewrap, through the runner.
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** Files holding a token, and whether the sandbox hides their folder (else the file itself). */
const TOKEN_FILES: readonly { path: string; folderHidden: boolean }[] = [
  { path: ".config/gh/hosts.yml", folderHidden: true },
  { path: ".cargo/credentials.toml", folderHidden: false },
  { path: ".cargo/credentials", folderHidden: false },
  { path: ".claude/.credentials.json", folderHidden: true },
  { path: ".claude.json", folderHidden: false },
  { path: ".codex/auth.json", folderHidden: true },
  { path: ".pgpass", folderHidden: false },
  { path: ".m2/settings.xml", folderHidden: false },
  { path: ".gradle/gradle.properties", folderHidden: false },
  { path: ".vault-token", folderHidden: false },
  { path: ".terraform.d/credentials.tfrc.json", folderHidden: true },
  { path: ".config/git/credentials", folderHidden: false },
  { path: ".bash_history", folderHidden: false },
  { path: ".zsh_history", folderHidden: false },
  // The trial of round 3 session 34 (HIGH 7) read these from a sandboxed command in mode auto.
  { path: ".gemini/oauth_creds.json", folderHidden: true },
  { path: ".config/github-copilot/apps.json", folderHidden: true },
  { path: ".terraformrc", folderHidden: false },
  { path: ".config/sops/age/keys.txt", folderHidden: true },
  { path: ".yarnrc.yml", folderHidden: false },
  { path: ".config/rclone/rclone.conf", folderHidden: true },
  { path: ".config/containers/auth.json", folderHidden: false },
  { path: ".config/google-chrome/Default/Cookies", folderHidden: true },
  { path: ".mozilla/firefox/profiles.ini", folderHidden: true },
  { path: ".gem/credentials", folderHidden: false },
  { path: ".local/share/keyrings/login.keyring", folderHidden: true },
  { path: ".turnloop/session-state/old/events.jsonl", folderHidden: true },
];

describe.skipIf(!sandboxReady)("credential places hidden by default", () => {
  let fixture: SandboxFixture;

  beforeEach(async () => {
    fixture = await createSandboxFixture();
    for (const { path } of TOKEN_FILES) {
      await mkdir(dirname(join(fixture.home, path)), { recursive: true });
      await writeFile(join(fixture.home, path), `token = ${fixture.secret}\n`);
    }
  });

  afterEach(async () => {
    await fixture?.remove();
  });

  it("none is read, directly or through a link made in the workspace, with TURNLOOP_HOME elsewhere", async () => {
    const runner = new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: join(fixture.base, "turnloop-elsewhere"),
    });
    const reads = TOKEN_FILES.map(({ path }) => `cat ~/${path}`).join("; ");
    const result = await runner.run(
      `${reads}; ln -s ~/.cargo/credentials.toml cargo-link && cat cargo-link; echo done`,
      {
        cwd: fixture.workspace,
        env: fixture.env,
        signal: new AbortController().signal,
        timeoutMs: 60_000,
        savePath: join(fixture.outside, "output.txt"),
        secrets: [],
      },
    );
    expect(result.output.split("\n")).toEqual([
      ...TOKEN_FILES.map(
        ({ path, folderHidden }) =>
          `cat: ${join(fixture.home, path)}: ${folderHidden ? "No such file or directory" : "Permission denied"}`,
      ),
      "cat: cargo-link: Permission denied",
      "done",
      "",
    ]);
    // Each is there, holding the token, outside the sandbox.
    for (const { path } of TOKEN_FILES) {
      expect(await readFile(join(fixture.home, path), "utf8")).toContain(fixture.secret);
    }
  });
});
