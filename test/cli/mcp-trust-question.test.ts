import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { gatherWithTrust } from "../../src/cli/mcp-trust-question.js";
import { isProjectTrusted } from "../../src/session/mcp-servers.js";
import { answeringTerminal } from "../support/answering-terminal.js";

let home: string;
let project: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "turnloop-trust-home-"));
  project = await mkdtemp(join(tmpdir(), "turnloop-trust-project-"));
  await writeFile(
    join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { repo: { command: "repo-server" } } }),
  );
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

describe("the project trust question of turnloop -p", () => {
  test("yes: the project's servers run now and the answer is remembered for the project", async () => {
    const asked = answeringTerminal("y\n");
    const gathered = await gatherWithTrust({ home, cwd: project }, asked);
    expect(asked.shown()).toBe(
      `\n${join(project, ".mcp.json")} wants to start MCP servers:\n` +
        "  repo: repo-server\n" +
        "They run programs from this project.\n" +
        "Trust this project (its MCP servers and its whole .turnloop/config.json) from now on? [y/N] ",
    );
    expect(Object.keys(gathered.servers)).toEqual(["repo"]);
    expect(gathered.untrustedProject).toBeUndefined();
    expect(await isProjectTrusted(home, project)).toBe(true);
    const again = answeringTerminal("");
    await gatherWithTrust({ home, cwd: project }, again);
    expect(again.shown()).toBe("");
  });

  test("no, or the end of input: nothing runs and nothing is remembered", async () => {
    for (const answer of ["n\n", ""]) {
      const gathered = await gatherWithTrust({ home, cwd: project }, answeringTerminal(answer));
      expect(gathered.servers).toEqual({});
      expect(gathered.untrustedProject?.names).toEqual(["repo"]);
    }
    expect(await isProjectTrusted(home, project)).toBe(false);
  });

  test("without a terminal nobody is asked", async () => {
    const gathered = await gatherWithTrust({ home, cwd: project }, undefined);
    expect(gathered.servers).toEqual({});
    expect(gathered.untrustedProject?.names).toEqual(["repo"]);
  });
});
