import { existsSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ChildFixture } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";

/**
 * test/support/test-home.ts gives each test home the run's code cache (made once by
 * test/support/code-cache-global.ts), hard links to the template's files. The CLI writes a cache
 * only for a script whose cache was missing or refused, and then by renaming a new file over the
 * link (src/cli/code-cache.cts): a home whose every cache file is still a link after a run, and
 * holds no other, was warm for that run. A cold home (before test-home.ts) has no cache folder
 * before its first run and files of its own after it.
 */

/** Each cache file of `home` (`cache/code/<build>/<script>.bin`, none without the folder) with its number of links. */
async function cacheFiles(home: string): Promise<Array<{ file: string; links: number }>> {
  const code = join(home, "cache", "code");
  const files: Array<{ file: string; links: number }> = [];
  const builds = existsSync(code) ? await readdir(code) : [];
  for (const build of builds) {
    for (const name of await readdir(join(code, build))) {
      const { nlink } = await lstat(join(code, build, name));
      files.push({ file: `${build}/${name}`, links: nlink });
    }
  }
  return files.sort((left, right) => left.file.localeCompare(right.file));
}

/** `files` with every link count read as "linked" (more than one) or "own" (one). */
function linkedOrOwn(files: Array<{ file: string; links: number }>) {
  return files.map(({ file, links }) => ({ file, links: links > 1 ? "linked" : "own" }));
}

describe("a test home starts with the run's code cache, which -p takes", () => {
  test("-p: every cache file is still the template's after the run, and none was added", async ({
    home,
    model,
    cli,
  }) => {
    const before = await cacheFiles(home);
    expect(before.length).toBeGreaterThan(0);
    expect(linkedOrOwn(before).filter(({ links }) => links === "own")).toEqual([]);
    model.enqueue({ text: "done" });
    const result = await cli(["-p", "say done"]);
    expect(result.stdout).toBe("done\n");
    expect(result.code).toBe(0);
    expect(linkedOrOwn(await cacheFiles(home))).toEqual(linkedOrOwn(before));
  });

  test("-p calling tools: the same (the template's run called them; a run that writes a new script's cache writes every cache again)", async ({
    home,
    model,
    cli,
  }) => {
    const before = await cacheFiles(home);
    model.enqueue(
      {
        toolCalls: [
          { id: "v", name: "view", arguments: JSON.stringify({ path: "." }) },
          { id: "b", name: "bash", arguments: JSON.stringify({ command: "echo ran" }) },
        ],
      },
      { text: "done" },
    );
    const result = await cli(["-p", "look", "--allow-all-tools"]);
    expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: "done\n", code: 0 });
    expect(linkedOrOwn(await cacheFiles(home))).toEqual(linkedOrOwn(before));
  });
});

describe("a test home starts with the run's code cache, which acp takes", () => {
  const fixture = ChildFixture.forEachTest();

  test("acp: the same after initialize, session/new and one prompt", async () => {
    const before = await cacheFiles(fixture.home);
    expect(before.length).toBeGreaterThan(0);
    fixture.server.enqueue({ text: "done" });
    const agent = fixture.startAgent();
    await agent.initialize();
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "say done")).toEqual({ stopReason: "end_turn" });
    expect(await agent.end()).toBe(0);
    expect(linkedOrOwn(await cacheFiles(fixture.home))).toEqual(linkedOrOwn(before));
  });
});
