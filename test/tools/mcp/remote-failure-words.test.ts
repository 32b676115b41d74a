import { describe, expect, test } from "vitest";
import { remoteFailure } from "../../../src/tools/mcp/remote-failure.js";

// A resolver that did not answer (EAI_AGAIN: a DNS server down or out of reach) was said as a
// host that was not found, as the model's connection said it (session 37's closing note): the
// name may exist. The MCP client's failures in the shape it gives them (the fetch's TypeError
// caused by the resolver's error); a real unknown host: test/cli/mcp-http-failures.test.ts.

function lookupFailure(code: string): TypeError {
  const cause = Object.assign(new Error(`getaddrinfo ${code} mcp.example.test`), { code });
  return new TypeError("fetch failed", { cause });
}

describe("an MCP server's host that DNS does not give", () => {
  test("not found (ENOTFOUND) and not looked up (EAI_AGAIN) are said apart", () => {
    const url = "https://mcp.example.test/mcp";
    expect([
      remoteFailure(lookupFailure("ENOTFOUND"), url),
      remoteFailure(lookupFailure("EAI_AGAIN"), url),
    ]).toEqual([
      "the host mcp.example.test was not found (DNS), for https://mcp.example.test/mcp",
      "the host mcp.example.test could not be looked up (DNS did not answer), for https://mcp.example.test/mcp",
    ]);
  });
});

// Trial 42 finding 6: a server at a port fetch blocks was said as "fetch failed" alone; the
// reason is in the error's cause. A real fetch's failure, as the MCP client gets it.
describe("an MCP server at a port fetch refuses", () => {
  test("says the port is blocked and what to do", async () => {
    const url = "http://user:pw42@127.0.0.1:1/mcp";
    const error = await fetch("http://127.0.0.1:1/mcp").catch((failure: unknown) => failure);
    expect(remoteFailure(error, url)).toBe(
      "fetch refuses port 1 of http://user:***@127.0.0.1:1/mcp (a port the Fetch standard blocks): use another port",
    );
  });
});
