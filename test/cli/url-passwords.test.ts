import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { gate } from "../support/gate.js";
import { createTestDatabase, postgresUnavailable } from "../support/postgres.js";

/**
 * Trial 42 finding 8: a URL's password was shown in clear when it held a space (the redaction
 * read a URL up to a space, or gave up when no parser took it) and in part when it held `@` or
 * `#` (it cut at the first `@` before a `#`): in errors, the JSON result, `turnloop config`,
 * `sessions list`, `mcp list`, and in the lease's `command` stored in `sessions.owner`. One
 * redaction (llm/shown-values.ts) now takes the user part up to the last `@` whatever it holds,
 * and a command line is redacted one argument at a time.
 */

/** A local port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address !== null ? address.port : 0;
}

const SPACED = "sec ret42";
const SIGNS = "p@ss#word42";

describe("a URL's password with a space, @ or # in it", () => {
  test("-p: the store's error on stderr and in the JSON result shows ***", async ({
    cli,
    environment,
  }) => {
    const port = await closedPort();
    const env = environment({
      TURNLOOP_DATABASE_URL: `postgres://turnloop:${SPACED}@127.0.0.1:${port}/turnloop`,
    });
    const result = await cli(["-p", "hello", "--output-format", "json"], { env });
    const shown = `postgres://turnloop:***@127.0.0.1:${port}/turnloop`;
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { error: { type: string; message: string } };
    expect(json.error.type).toBe("storage");
    expect(json.error.message).toContain(shown);
    expect(result.stderr).toContain(shown);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/ret42|sec ret/);
  });

  test("turnloop config and sessions list show *** (and why a # breaks the URL)", async ({
    cli,
    environment,
  }) => {
    const port = await closedPort();
    const rows: string[] = [];
    for (const password of [SPACED, SIGNS]) {
      const url = `postgres://turnloop:${password}@127.0.0.1:${port}/turnloop`;
      const config = await cli(["config"], { env: environment({ TURNLOOP_DATABASE_URL: url }) });
      rows.push(...config.stdout.split("\n").filter((line) => line.startsWith("store")));
      const list = await cli(["sessions", "list", "--store", url]);
      expect(list.code).toBe(1);
      expect(`${config.stdout}${config.stderr}${list.stdout}${list.stderr}`).not.toMatch(
        /ret42|ss#word|word42/,
      );
      expect(list.stderr).toMatch(/^turnloop: postgres:\/\/turnloop:\*\*\*@/);
    }
    expect(rows.map((row) => row.replace(/\s+/g, " "))).toEqual([
      `store postgres://turnloop:***@127.0.0.1:${port}/turnloop from TURNLOOP_DATABASE_URL`,
      `store postgres://turnloop:***@127.0.0.1:${port}/turnloop (its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23) from TURNLOOP_DATABASE_URL`,
    ]);
  });

  test("mcp list: an http server's URL with such a password shows ***; one whose # or / would name another host is refused, named with ***", async ({
    cli,
    repository,
  }) => {
    const port = await closedPort();
    const config = join(repository, "servers.json");
    const spaced = { type: "http", url: `http://user:${SPACED}@127.0.0.1:${port}/mcp` };
    await writeFile(config, JSON.stringify({ mcpServers: { h: spaced } }));
    const result = await cli(["mcp", "list", "--mcp-config", config]);
    expect(result.stdout.split("\n").map((line) => line.replace(/\s+/g, " "))).toEqual([
      `h http failed 0 tools nothing is listening at http://user:***@127.0.0.1:${port}/mcp`,
      "",
    ]);
    const refusals: string[] = [];
    for (const url of [
      `http://user:${SIGNS}@127.0.0.1:${port}/mcp`,
      `ftp://user:${SPACED}@h/mcp`,
    ]) {
      await writeFile(config, JSON.stringify({ mcpServers: { i: { type: "http", url } } }));
      const refused = await cli(["mcp", "list", "--mcp-config", config]);
      expect(refused.code).toBe(64);
      refusals.push(refused.stderr.split("\n")[0] ?? "");
      expect(`${refused.stdout}${refused.stderr}`).not.toMatch(/ret42|word42/);
    }
    expect(refusals).toEqual([
      `turnloop: ${config}: server "i": "url" http://user:***@127.0.0.1:${port}/mcp: its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23`,
      `turnloop: ${config}: server "i": "url" is not an http:// or https:// URL: "ftp://user:***@h/mcp"`,
    ]);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/ret42/);
  });
});

describe.skipIf(postgresUnavailable !== undefined)("the lease's command in sessions.owner", () => {
  test("holds no password, even one with a space (the test server takes any password)", async ({
    cli,
    model,
  }) => {
    const database = await createTestDatabase();
    try {
      const url = new URL(database.url);
      url.password = "placeholder";
      const store = url.href.replace("placeholder", SPACED);
      const released = gate();
      const streaming = gate();
      model.enqueue({
        text: ["held", " reply"],
        pause: { afterEvents: 1, until: released.opened },
      });
      const holder = cli(["--store", store, "-p", "hold", "--output-format", "stream-json"], {
        onStart: (child) => {
          child.stdout?.on("data", (chunk: Buffer) => {
            if (chunk.toString("utf8").includes('"assistant.turn_start"')) {
              streaming.open();
            }
          });
        },
      });
      await streaming.opened;
      const { rows } = await database.pool.query<{ command: string }>(
        "SELECT owner->>'command' AS command FROM sessions",
      );
      released.open();
      expect((await holder).code).toBe(0);
      const shown = url.href.replace("placeholder", "***");
      expect(rows).toEqual([
        { command: `turnloop --store ${shown} -p hold --output-format stream-json` },
      ]);
    } finally {
      await database.drop();
    }
  });
});
