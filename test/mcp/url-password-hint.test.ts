import { describe, expect, test } from "vitest";
import { redactDatabaseUrl } from "../../src/llm/shown-values.js";
import { parseServerEntry } from "../../src/tools/mcp/config.js";

/**
 * Session 43, N6: a remote MCP server's URL whose password holds `#`, `/` or `?` (which end a
 * URL's user part) was refused as "not an http:// or https:// URL" when the URL parser could not
 * read it at all (`http://user:ab#cd@host/mcp` reads as host `user`, port `ab`), with no word of
 * the percent-encoding a database URL's refusal gives (llm/shown-values.ts `urlPasswordProblem`).
 */
describe("an http MCP server's URL whose password holds # / or ?", () => {
  test("each is refused with the percent-encoding hint, its password shown as ***", () => {
    const urls = [
      "http://user:ab#cd@127.0.0.1:9/mcp",
      "http://user:ab/cd@127.0.0.1:9/mcp",
      "https://user:ab?cd@example.test/mcp",
      "http://user:p@ss#word@127.0.0.1:9/mcp",
    ];
    const hint =
      "its password holds / ? or #, which end a URL's user part: write them percent-encoded, %2F %3F %23";
    expect(urls.map((url) => parseServerEntry("docs", { type: "http", url }))).toEqual([
      `server "docs": "url" http://user:***@127.0.0.1:9/mcp: ${hint}`,
      `server "docs": "url" http://user:***@127.0.0.1:9/mcp: ${hint}`,
      `server "docs": "url" https://user:***@example.test/mcp: ${hint}`,
      `server "docs": "url" http://user:***@127.0.0.1:9/mcp: ${hint}`,
    ]);
  });

  test("the same password percent-encoded is taken, and one that is no http URL is still said so", () => {
    expect(
      parseServerEntry("docs", { type: "http", url: "http://user:ab%23cd@127.0.0.1:9/mcp" }),
    ).toEqual({
      type: "http",
      url: "http://user:ab%23cd@127.0.0.1:9/mcp",
      headers: {},
    });
    expect(parseServerEntry("docs", { type: "sse", url: "ftp://user:ab#cd@h/mcp" })).toBe(
      `server "docs": "url" is not an http:// or https:// URL: "ftp://user:***@h/mcp"`,
    );
  });
});

// Trial 44 F4: a port out of range or with a letter in it (`:99999`, `:48O1`) was said to be no
// http:// or https:// URL, as the scheme were at fault; the port is named, as for a base URL
// (test/cli/base-url-check.test.ts) and a database URL.
describe("a URL whose port is no number from 0 to 65535", () => {
  test("an MCP server's url and a database URL name the port", () => {
    const entries = ["http://127.0.0.1:99999/mcp", "http://user:pw@127.0.0.1:48O1/mcp"].map((url) =>
      parseServerEntry("docs", { type: "http", url }),
    );
    expect(entries).toEqual([
      `server "docs": "url" its port "99999" is no number from 0 to 65535: "http://127.0.0.1:99999/mcp"`,
      `server "docs": "url" its port "48O1" is no number from 0 to 65535: "http://user:***@127.0.0.1:48O1/mcp"`,
    ]);
    expect(
      [
        "postgres://bob:secret@127.0.0.1:99999/turnloop",
        "postgres://bob@db.example.test:54x2/turnloop",
        "postgres://bob@[::1/turnloop",
      ].map(redactDatabaseUrl),
    ).toEqual([
      `postgres://bob:***@127.0.0.1:99999/turnloop (its port "99999" is no number from 0 to 65535)`,
      `postgres://bob@db.example.test:54x2/turnloop (its port "54x2" is no number from 0 to 65535)`,
      "postgres://bob@[::1/turnloop (not a valid URL)",
    ]);
  });
});
