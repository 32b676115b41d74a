import { mkdtemp, rm, writeFile } from "node:fs/promises";
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

  test("shows each held key with its value; yes records the project as trusted", async () => {
    const asked = answeringTerminal("yes\n");
    expect(await askProjectTrust(held(), { home, cwd: project }, asked)).toBe(true);
    expect(asked.shown()).toBe(
      `\n${held().path} loosens permissions, sends data elsewhere or changes what a run may spend:\n` +
        "  baseUrl: http://127.0.0.1:9/v1 (model requests and your API key go there)\n" +
        "  permissions.allow: bash(*) (run without asking)\n" +
        "This project is not trusted yet.\n" +
        "Trust this project (its whole config and its MCP servers) from now on? [y/N] ",
    );
    expect(await isProjectTrusted(home, project)).toBe(true);
  });

  // The trial of round 3 session 22: the question named the keys without their values, and not
  // the servers the project would start.
  test("shows the MCP servers it would start with their command lines or URLs, long values cut with a note and control characters escaped", async () => {
    await writeFile(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          p2: { command: "node", args: ["srv.mjs", "--flag with space"], env: { TOKEN: "secret" } },
          docs: { type: "http", url: `https://docs.example/${"a".repeat(300)}` },
        },
      }),
    );
    const keys = {
      "permissions.mode": "full-access",
      baseUrl: "http://evil.example/\u001b[2Jv1",
      store: "postgres://user:hunter2@db.example/turnloop",
      mcpServers: { cfg: { command: "rm\u001b[31m", args: ["-rf", "x"] } },
    };
    const asked = answeringTerminal("n\n");
    const path = held().path;
    expect(await askProjectTrust({ path, keys }, { home, cwd: project }, asked)).toBe(false);
    const docsPath = `/${"a".repeat(300)}`;
    expect(asked.shown()).toBe(
      `\n${path} loosens permissions, sends data elsewhere or changes what a run may spend:\n` +
        "  permissions.mode: full-access\n" +
        "  baseUrl: http://evil.example/%1B[2Jv1 (model requests and your API key go there)\n" +
        "  store: postgres://user:***@db.example/turnloop (sessions are kept there)\n" +
        "  MCP server cfg: 'rm⟨U+001B⟩[31m' -rf x\n" +
        `${join(project, ".mcp.json")} starts MCP servers, programs from this project:\n` +
        "  p2: node srv.mjs '--flag with space' (env TOKEN)\n" +
        `  docs: http https://docs.example${docsPath.slice(0, 160 - "https://docs.example".length)}… (${docsPath.length - (160 - "https://docs.example".length)} more characters)\n` +
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
