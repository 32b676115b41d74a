/**
 * A sandboxed command that names a hidden place (trial 40 F7): where the sandbox hid it, `cat
 * ~/.ssh/id_ed25519` reads "No such file or directory", which a model passes on as "you have no
 * key". The command's result gets a note naming the hidden places its text or output named; none
 * when it named none. Real bubblewrap through the runner, the fixture's fake HOME (outside /tmp).
 */

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandRequest } from "../../../src/tools/command-runner.js";
import { SandboxedRunner } from "../../../src/tools/sandbox/sandboxed-runner.js";
import { requireSandbox } from "../../support/sandbox.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** The note for credential places `shown`, as the runner words it. */
function credentialNote(...shown: string[]): string {
  const one = shown.length === 1;
  const places = shown
    .map(
      (place) =>
        `${place} (one of the places for credentials and sockets; sandbox.hidden in a config file)`,
    )
    .join(", ");
  return (
    `Note: the sandbox hides ${places} from commands, so here ${one ? "it reads" : "each reads"} ` +
    `as missing, empty or not permitted whatever ${one ? "it holds" : "they hold"}. Do not tell the user ` +
    `${one ? "it is" : "they are"} missing, and do not try to reach ${one ? "it" : "them"} another way: ` +
    `only the user can allow ${one ? "it" : "them"}.`
  );
}

describe.skipIf(!sandboxReady)("a sandboxed command that names a hidden place", () => {
  let fixture: SandboxFixture;
  let runner: SandboxedRunner;

  beforeAll(async () => {
    fixture = await createSandboxFixture();
    runner = new SandboxedRunner("workspace-write", {
      home: fixture.home,
      turnloopHome: fixture.turnloopHome,
    });
  });

  afterAll(async () => {
    await fixture.remove();
  });

  function request(): CommandRequest {
    return {
      cwd: fixture.workspace,
      env: fixture.env,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(fixture.base, "output.txt"),
      secrets: [],
    };
  }

  it("a read of a hidden key that the command's exit hides: the note names the place", async () => {
    const result = await runner.run("cat ~/.ssh/id_ed25519; echo done", request());
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      output: `cat: ${fixture.home}/.ssh/id_ed25519: No such file or directory\ndone\n`,
      truncated: false,
      note: credentialNote("~/.ssh"),
    });
  });

  it("places named as $HOME/… and only in the output are named too, in the hidden list's order", async () => {
    const result = await runner.run(
      'ls -d "$HOME"/.aws/credentials $HOME/.netrc 2>&1 | sed "s/^/seen /"; true',
      request(),
    );
    expect(result.note).toBe(credentialNote("~/.aws", "~/.netrc"));
    expect(result.output).toContain(".netrc");
  });

  it("a command naming no hidden place gets no note", async () => {
    const result = await runner.run("cat existing.txt; ls ~ > /dev/null", request());
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      output: "workspace file\n",
      truncated: false,
    });
  });
});
