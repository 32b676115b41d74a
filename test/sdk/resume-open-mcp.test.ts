import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { serverLog, stdioEntry } from "../support/mcp/servers.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, requestMessages } from "./support.js";

/**
 * `resumeSession` of a session the server already has open (another of the app's session
 * objects, another client) with `mcpServers`: the servers the session lacks start for it and
 * their tools are offered from its next request; one it runs already keeps running as it is, and
 * one given with other settings is said in a `session.warning`. Before, the servers were ignored
 * without a word.
 */

const fixture = fixtureForFile();

function toolNames(request: number): string[] {
  const body = fixture.model.requests.at(request)?.body as {
    tools?: Array<{ function: { name: string } }>;
  };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("resume of an open session with mcpServers", () => {
  test("starts the servers it lacks; one it runs with other settings keeps them, said in a warning", async () => {
    const client = await fixture.startedClient();
    const first = await client.createSession({
      mcpServers: { t: stdioEntry("--log", join(fixture.cwd, "t.log")) },
      onPermissionRequest: approveAll,
    });
    const joined = await client.resumeSession(first.sessionId, {
      mcpServers: {
        t: stdioEntry("--log", join(fixture.cwd, "other-t.log")),
        u: stdioEntry("--log", join(fixture.cwd, "u.log")),
      },
      onPermissionRequest: approveAll,
    });
    fixture.model.enqueue(callingTools(["call_u", "u-echo", { text: "joined" }]), {
      text: "done",
    });
    await joined.sendAndWait({ prompt: "echo with u" });
    expect(toolNames(-2)).toEqual(expect.arrayContaining(["t-echo", "u-echo"]));
    expect(requestMessages(fixture.model, -1).at(-1)).toMatchObject({
      role: "tool",
      content: "echo: joined",
    });
    const stored = await joined.getMessages();
    const warnings = stored.flatMap((event) =>
      event.type === "session.warning" ? [event.data] : [],
    );
    expect(warnings).toEqual([
      {
        warningType: "mcp_server_not_started",
        message:
          'MCP server not started: session mcpServers: server "t" already runs in this session with other settings, which it keeps (to change them, close the session and resume it)',
      },
    ]);
    // `t` runs as first started: the server with the other settings never ran.
    expect(serverLog(join(fixture.cwd, "other-t.log"))).toEqual([]);
    expect(serverLog(join(fixture.cwd, "u.log")).length).toBeGreaterThan(0);
  });
});
