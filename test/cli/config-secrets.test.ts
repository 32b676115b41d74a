import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { test } from "../support/fixtures.js";

// Trial 27, finding 8: `config --json` printed an MCP server's `Authorization` header and its
// `?token=` whole, text mode printed `env` values and URL passwords (an MCP URL's, the base URL's),
// `mcp list` and -p's stderr printed the MCP URL whole. One redaction for every place.

/** A port of this lane's range where nothing listens. */
const CLOSED_PORT = 47813;
const servers = {
  gh: {
    type: "http",
    url: `http://127.0.0.1:${CLOSED_PORT}/mcp`,
    headers: { Authorization: "Bearer ghp_SECRETHEADERTOKEN123", "X-Team": "hunter2-team" },
  },
  // Trial 44: args were shown as written, a token among them, while env and headers were not.
  db: {
    command: "node",
    args: [
      "server.mjs",
      "--token=ghp_SECRETARGTOKEN456",
      "--api-key",
      "hunter2-arg",
      "ghp_SECRETBAREARG789",
      "--verbose",
      "--port",
      "8080",
    ],
    env: { DB_PASSWORD: "hunter2-in-config" },
  },
  url: {
    type: "http",
    url: `http://user:pa55word@127.0.0.1:${CLOSED_PORT}/mcp?token=SECRETQUERY&region=eu`,
  },
};
const secrets = /ghp_|hunter2|pa55word|SECRETQUERY|basicpass/;
const shownServers = {
  gh: {
    type: "http",
    url: `http://127.0.0.1:${CLOSED_PORT}/mcp`,
    headers: { Authorization: "[redacted]", "X-Team": "[redacted]" },
  },
  db: {
    type: "stdio",
    command: "node",
    args: [
      "server.mjs",
      "--token=[redacted]",
      "--api-key",
      "[redacted]",
      "[redacted]",
      "--verbose",
      "--port",
      "8080",
    ],
    env: { DB_PASSWORD: "[redacted]" },
  },
  url: {
    type: "http",
    url: `http://user:***@127.0.0.1:${CLOSED_PORT}/mcp?token=***&region=eu`,
    headers: {},
  },
};

test("config shows no header value, env value, URL password or token, in text or JSON", async ({
  cli,
  home,
  model,
}) => {
  await writeFile(join(home, "config.json"), JSON.stringify({ mcpServers: servers }));
  const baseUrl = `http://u:basicpass@127.0.0.1:${new URL(model.url).port}/v1`;
  const text = await cli(["config"], { env: { TURNLOOP_BASE_URL: baseUrl } });
  expect(text.code).toBe(0);
  const rows = text.stdout.split("\n").filter((line) => /^(mcpServers|baseUrl)/.test(line));
  const file = join(home, "config.json");
  expect(rows.map((line) => line.replace(/ +/, " "))).toEqual([
    `baseUrl ${baseUrl.replace("basicpass", "***")}    from TURNLOOP_BASE_URL`,
    ...Object.entries(shownServers).map(
      ([name, shown]) => `mcpServers.${name} ${JSON.stringify(shown)}    from ${file}`,
    ),
  ]);
  expect(text.stdout + text.stderr).not.toMatch(secrets);

  const json = await cli(["config", "--json"], { env: { TURNLOOP_BASE_URL: baseUrl } });
  expect(json.stdout + json.stderr).not.toMatch(secrets);
  const shown = JSON.parse(json.stdout) as {
    baseUrl: { value: string };
    mcpServers: Record<string, { value: unknown }>;
  };
  expect(shown.baseUrl.value).toBe(baseUrl.replace("basicpass", "***"));
  expect(
    Object.fromEntries(Object.entries(shown.mcpServers).map(([k, v]) => [k, v.value])),
  ).toEqual(shownServers);
});

test("mcp list says where a server could not be reached without its password or token", async ({
  cli,
  home,
}) => {
  const { url } = servers;
  await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: { url, gh: servers.gh } }));
  const listed = await cli(["mcp", "list"]);
  expect(listed).toMatchObject({ code: 1, stderr: "" });
  // The URL's credentials go as an Authorization header (tools/mcp/remote-transport.ts), so the
  // server is tried like any other; where it is not listening, the URL is said without them.
  expect(listed.stdout).toBe(
    [
      `url  http  failed  0 tools  nothing is listening at ${shownServers.url.url}`,
      `gh   http  failed  0 tools  nothing is listening at ${shownServers.gh.url}`,
      "",
    ].join("\n"),
  );
});
