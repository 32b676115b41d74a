import { mkdir, open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { gatherMcpServers } from "../../src/session/mcp-servers.js";
import { fifoMaker } from "../support/fifos.js";
import { useTemporaryDirectory } from "../tools/tool-context.js";

// A session's MCP servers come from the files of one project (config-paths.ts `projectFolder`,
// looked for once as they are gathered: mcp-servers.ts `gatherMcpServers`): a `.git` made in a
// folder above while the files are read does not add another project's `.turnloop/config.json`
// under the trust of the first. The trust file is a FIFO, so the `.git` is made exactly while the
// gathering waits on it.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});
const makeFifo = fifoMaker();

test("the servers of one gathering are one project's, though a .git appears above meanwhile", async () => {
  const home = join(directory, "turnloop-home");
  const repository = join(directory, "repository");
  const cwd = join(repository, "tools");
  await mkdir(home);
  await mkdir(join(repository, ".turnloop"), { recursive: true });
  await mkdir(cwd);
  const servers = (name: string) => JSON.stringify({ mcpServers: { [name]: { command: name } } });
  await writeFile(join(cwd, ".mcp.json"), servers("tools-server"));
  await writeFile(join(repository, ".turnloop", "config.json"), servers("repository-server"));
  const trustFile = join(home, "trusted-projects.json");
  makeFifo(trustFile);
  const gathering = gatherMcpServers({ home, cwd });
  // The gathering is blocked on the trust file until it is written: the repository becomes a
  // git repository meanwhile, with `tools` (trusted below, files and all) inside it.
  await mkdir(join(repository, ".git"));
  const writer = await open(trustFile, "w");
  await writer.writeFile(JSON.stringify({ projects: { [cwd]: { mcpServers: true } } }));
  await writer.close();
  const gathered = await gathering;
  expect({ servers: gathered.servers, sources: gathered.sources }).toEqual({
    servers: { "tools-server": { type: "stdio", command: "tools-server", args: [], env: {} } },
    sources: { "tools-server": join(cwd, ".mcp.json") },
  });
});
