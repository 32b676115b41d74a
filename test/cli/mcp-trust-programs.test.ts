import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { test } from "../support/fixtures.js";
import { TEST_SERVER } from "../support/mcp/servers.js";

/*
 * A trust covers what it lets run (trial of round 3 session 34, HIGH 4): a trusted project's
 * `.mcp.json` runs `node tools/server.mjs`; a later change of that script (a new pull request
 * checked out at the trusted path, or a sandboxed command) used to run at the next start without a
 * question, since a trust recorded only the text of `.mcp.json` and `.turnloop/config.json`.
 * Real `turnloop` children, a real MCP server (test/support/mcp/test-server.mjs, imported by the
 * project's script), real trust records in TURNLOOP_HOME.
 */

/** The servers whose tools request `request` offered, sorted. */
function serversOffered(model: FakeModelServer, request: number): string[] {
  const body = model.requests[request]?.body as { tools?: Array<{ function: { name: string } }> };
  const names = (body.tools ?? []).map((tool) => tool.function.name);
  return [
    ...new Set(
      names.filter((name) => name.includes("__")).map((name) => name.slice(0, name.indexOf("__"))),
    ),
  ].sort();
}

test("a change of the script a trusted .mcp.json runs asks again; trusting again lets it run", async ({
  cli,
  home,
  model,
  repository,
}) => {
  await mkdir(join(repository, "tools"));
  const script = join(repository, "tools", "server.mjs");
  await writeFile(script, `import ${JSON.stringify(pathToFileURL(TEST_SERVER).href)};\n`);
  const servers = { docs: { command: process.execPath, args: ["tools/server.mjs"] } };
  await writeFile(join(repository, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  const trusted = await cli(["mcp", "trust"]);
  expect(trusted.code, trusted.stderr).toBe(0);
  const record = JSON.parse(await readFile(join(home, "trusted-projects.json"), "utf8")) as {
    projects: Record<string, { files: Record<string, string> }>;
  };
  expect(Object.keys(record.projects[repository]?.files ?? {})).toEqual([
    ".turnloop/config.json",
    ".mcp.json",
    "tools/server.mjs",
  ]);
  model.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
  const before = await cli(["-p", "hi"]);
  expect(before.code, before.stderr).toBe(0);
  expect(serversOffered(model, 0)).toEqual(["docs"]);

  // The next pull request: the same path, other code.
  await appendFile(script, "// changed\n");
  const changed = await cli(["-p", "hi"]);
  expect(changed.code, changed.stderr).toBe(0);
  expect(changed.stderr.split("\n")).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^turnloop: warning: not starting the MCP servers of ${join(repository, ".mcp.json")} \\(docs\\): tools/server\\.mjs changed since this project was trusted on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC; run \`turnloop mcp trust\` in it to allow them$`,
      ),
    ),
  );
  expect(serversOffered(model, 1)).toEqual([]);

  expect((await cli(["mcp", "trust"])).code).toBe(0);
  const again = await cli(["-p", "hi"]);
  expect(again.code, again.stderr).toBe(0);
  expect(serversOffered(model, 2)).toEqual(["docs"]);
});
