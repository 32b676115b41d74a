import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A fresh user's trial (round 3, session 16, #18): `session/load` of a session whose folder had
// been removed answered a normal result, and every tool then failed in it. It is refused with
// `-32602` naming the folder, as `session/new` refuses a cwd that is not an existing directory.

const fixture = ChildFixture.forEachTest();

/** The JSON-RPC error of `request`, or `"answered"`. */
function refusal(request: Promise<unknown>): Promise<unknown> {
  return request.then(
    () => "answered",
    (error: { code?: number; message?: string; data?: unknown }) => ({
      code: error.code,
      message: error.message,
      data: error.data,
    }),
  );
}

test("session/load and session/resume of a session whose folder is gone: -32602 naming the folder", async () => {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-acp-gone-"));
  const first = fixture.startAgent();
  await first.initialize();
  const params = { cwd: folder, mcpServers: [] };
  const { sessionId } = await first.client.request(acp.methods.agent.session.new, {
    cwd: folder,
    mcpServers: [],
  });
  expect(await first.end()).toBe(0);
  await rm(folder, { recursive: true });

  const agent = fixture.startAgent();
  await agent.initialize();
  const gone = `session ${sessionId} works in ${folder}, which is not an existing directory here; create or restore it to resume the session`;
  const refused = (method: string) => ({
    code: -32602,
    message: `${method}: cwd: ${gone}`,
    data: { method, cwd: folder, problems: [{ path: ["cwd"], message: gone }] },
  });
  const load = agent.client.request(acp.methods.agent.session.load, { ...params, sessionId });
  expect(await refusal(load)).toEqual(refused("session/load"));
  const resume = agent.client.request(acp.methods.agent.session.resume, { ...params, sessionId });
  expect(await refusal(resume)).toEqual(refused("session/resume"));
  // With another cwd (session-18 brief #6): not "open it with that cwd" alone, which would fail.
  const elsewhere = { ...params, cwd: fixture.cwd, sessionId };
  const advice = `session ${sessionId} works in ${folder}, which is not an existing directory here; create or restore it, then open it with that cwd; or start a new session in ${fixture.cwd}`;
  expect(await refusal(agent.client.request(acp.methods.agent.session.load, elsewhere))).toEqual({
    code: -32602,
    message: `session/load: cwd: ${advice}`,
    data: {
      method: "session/load",
      cwd: fixture.cwd,
      sessionCwd: folder,
      problems: [{ path: ["cwd"], message: advice }],
    },
  });
  expect(agent.updates(sessionId)).toEqual([]);
  // Refused resumes write nothing (session-18 brief #11): the log is its start alone.
  expect((await fixture.persisted(sessionId)).map((event) => event.type)).toEqual([
    "session.start",
  ]);
  expect(fixture.server.requests).toHaveLength(0);
  expect(await agent.end()).toBe(0);
});
