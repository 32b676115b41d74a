import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { chatMessages } from "../support/harness.js";

let server: FakeModelServer;
let home: string;
let repository: string;

beforeAll(async () => {
  server = await startFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "turnloop-deny-home-"));
  repository = await mkdtemp(join(tmpdir(), "turnloop-deny-repo-"));
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(repository, { recursive: true, force: true });
});

/** Has the model run `command` once through `turnloop -p` with `flags`; returns the tool result. */
async function runThroughCli(command: string, flags: readonly string[]): Promise<string> {
  server.enqueue(
    { toolCalls: [{ id: "call_rm", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
  const result = await runCli(["-p", "delete x", ...flags], {
    cwd: repository,
    env: cleanEnvironment({
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
    }),
  });
  expect(result.code, result.stderr).toBe(0);
  const toolMessage = chatMessages(server, -1).find((message) => message.role === "tool");
  return String(toolMessage?.content);
}

describe("turnloop -p --allow-all-tools --deny-tool 'bash(rm *)'", () => {
  const flags = ["--allow-all-tools", "--deny-tool", "bash(rm *)"];

  test("without the deny rule the command does delete the file (the test can fail)", async () => {
    await writeFile(join(repository, "x"), "keep me");
    const output = await runThroughCli("rm -rf x", ["--allow-all-tools"]);
    expect(output).toContain("<exited with exit code 0>");
    expect(existsSync(join(repository, "x"))).toBe(false);
  });

  test.each([
    `"rm" -rf x`,
    `r\\m -rf x`,
    `command rm -rf x`,
    `env rm -rf x`,
    `/bin/rm -rf x`,
    `bash -c 'rm -rf x'`,
  ])("the file survives %s", async (command) => {
    await writeFile(join(repository, "x"), "keep me");
    const output = await runThroughCli(command, flags);
    expect(output).toBe("Permission denied for 'bash': the rule bash(rm *) denies it");
    expect(existsSync(join(repository, "x"))).toBe(true);
  });
});
