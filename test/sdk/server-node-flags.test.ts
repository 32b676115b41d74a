import { readdir, readFile } from "node:fs/promises";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { firstLineNodeFlags, spawnServer } from "../../src/sdk/transport.js";
import { BIN_PATH, CLI_PATH } from "../support/cli.js";
import { fixtureForFile } from "./support.js";

/**
 * Issue 26 (bench/notes/memory31.md): the server the SDK starts runs with the Node flags of its
 * script's first line, as the script does when run itself (`#!/usr/bin/env -S node
 * --max-semi-space-size=2 --min-semi-space-size=2`, src/cli/main.ts): V8's young generation
 * capped at 2 MiB a semi-space. Started without them, a server streaming a 5 MB reply peaked
 * about 20 MiB higher. The Copilot SDK runs a path that does not end in `.js` itself: given the
 * package's bin (README), its server gets the same flags. Read as `ps` shows the child: its
 * /proc/<pid>/cmdline (Linux).
 */

const fixture = fixtureForFile();
const CAP = ["--max-semi-space-size=2", "--min-semi-space-size=2"];

/** The command lines of this process's children (every thread's), as words. */
async function childCommandLines(): Promise<string[][]> {
  const lines: string[][] = [];
  for (const thread of await readdir(`/proc/${process.pid}/task`)) {
    const children = await readFile(`/proc/${process.pid}/task/${thread}/children`, "utf8");
    for (const pid of children.split(/\s+/).filter(Boolean)) {
      const words = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      lines.push(words.split("\0").filter(Boolean));
    }
  }
  return lines;
}

test("both entries' first lines carry the young generation's cap", async () => {
  expect(await firstLineNodeFlags(CLI_PATH)).toEqual(CAP);
  expect(await firstLineNodeFlags(BIN_PATH)).toEqual(CAP);
  expect(await firstLineNodeFlags(new URL(import.meta.url).pathname)).toEqual([]);
});

test.runIf(process.platform === "linux")(
  "the SDK starts dist/cli/main.js as it starts itself: node with its first line's flags",
  async () => {
    const transport = await spawnServer({
      cliPath: CLI_PATH,
      args: ["--cwd", fixture.cwd],
      cwd: fixture.cwd,
      env: fixture.env,
    });
    try {
      const lines = await childCommandLines();
      expect(lines.filter((words) => words.includes(CLI_PATH))).toEqual([
        [process.execPath, ...CAP, CLI_PATH, "--headless", "--stdio", "--cwd", fixture.cwd],
      ]);
    } finally {
      await transport.close(10_000);
    }
  },
);

test.runIf(process.platform === "linux")(
  "the Copilot SDK given the bin (README) starts it itself, through its first line: node with the cap",
  async () => {
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: BIN_PATH, env: fixture.env, args: [] }),
      workingDirectory: fixture.cwd,
    });
    try {
      await client.start();
      const lines = await childCommandLines();
      const servers = lines.filter((words) => words.includes(BIN_PATH));
      // `env -S` ran `node` from PATH with the first line's flags, then the bin and the SDK's words.
      expect(servers.map((words) => words.slice(0, words.indexOf(BIN_PATH) + 1))).toEqual([
        ["node", ...CAP, BIN_PATH],
      ]);
      expect(servers[0]).toEqual(expect.arrayContaining(["--headless", "--stdio"]));
    } finally {
      await client.stop();
    }
  },
);
