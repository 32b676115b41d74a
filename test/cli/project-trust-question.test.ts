import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { askProjectTrust } from "../../src/cli/project-trust-question.js";
import { isProjectTrusted } from "../../src/session/config-paths.js";
import { answeringTerminal } from "../support/answering-terminal.js";

// The question `-p` and the interactive face ask on a terminal when an untrusted project's
// config has held keys (src/cli/run.ts `configure`); real files in a temporary home.

let home: string;
let project: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "turnloop-trust-home-"));
  project = await mkdtemp(join(tmpdir(), "turnloop-trust-project-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

describe("the project trust question for held config keys", () => {
  const held = () => ({
    path: join(project, ".turnloop", "config.json"),
    keys: { baseUrl: "http://127.0.0.1:9/v1", "permissions.allow": ["bash(*)"] },
  });

  test("names the file and the held keys; yes records the project as trusted", async () => {
    const asked = answeringTerminal("yes\n");
    expect(await askProjectTrust(held(), { home, cwd: project }, asked)).toBe(true);
    expect(asked.shown()).toBe(
      `\n${held().path} sets baseUrl, permissions.allow, which loosen permissions or send data ` +
        "elsewhere. This project is not trusted yet.\n" +
        "Trust this project (its whole config and its MCP servers) from now on? [y/N] ",
    );
    expect(await isProjectTrusted(home, project)).toBe(true);
  });

  test("one key: the question's verbs agree with it", async () => {
    const one = { path: held().path, keys: { "permissions.mode": "full-access" } };
    const asked = answeringTerminal("n\n");
    expect(await askProjectTrust(one, { home, cwd: project }, asked)).toBe(false);
    expect(asked.shown()).toBe(
      `\n${one.path} sets permissions.mode, which loosens permissions or sends data elsewhere. ` +
        "This project is not trusted yet.\n" +
        "Trust this project (its whole config and its MCP servers) from now on? [y/N] ",
    );
  });

  test("no, or the end of input: nothing is recorded", async () => {
    for (const answer of ["n\n", ""]) {
      expect(await askProjectTrust(held(), { home, cwd: project }, answeringTerminal(answer))).toBe(
        false,
      );
    }
    expect(await isProjectTrusted(home, project)).toBe(false);
  });
});
