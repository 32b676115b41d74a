import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A fresh user's check: `session/load` with a `cwd` other than the session's folder loaded it
// and said so only on stderr, which editors hide; the editor showed the session as one of its
// own folder. A session keeps its folder: the load (and `session/resume`) is refused, naming
// both folders, before anything is written, as `-p --resume --cwd` refuses it (exit 64).

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

test("session/load and session/resume with another folder's cwd are refused, naming both; a link to its folder is fine", async () => {
  fixture.server.enqueue({ text: "one" });
  const first = fixture.startAgent();
  await first.initialize();
  const sessionId = await first.newSession();
  expect(await first.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  expect(await first.end()).toBe(0);
  const before = await fixture.persisted(sessionId);
  const elsewhere = await mkdtemp(join(tmpdir(), "turnloop-acp-elsewhere-"));
  try {
    const agent = fixture.startAgent();
    await agent.initialize();
    const params = { sessionId, cwd: elsewhere, mcpServers: [] };
    const advice =
      `session ${sessionId} works in ${fixture.cwd}; open ` +
      `it with that cwd, or start a new session in ${elsewhere}`;
    const refused = (method: string) => ({
      code: -32602,
      message: `${method}: cwd: ${advice}`,
      data: {
        method,
        cwd: elsewhere,
        sessionCwd: fixture.cwd,
        problems: [{ path: ["cwd"], message: advice }],
      },
    });
    expect(await refusal(agent.client.request(acp.methods.agent.session.load, params))).toEqual(
      refused("session/load"),
    );
    expect(await refusal(agent.client.request(acp.methods.agent.session.resume, params))).toEqual(
      refused("session/resume"),
    );
    // A relative cwd is refused as ACP requires (an absolute path), not judged as another folder.
    const relative = { ...params, cwd: "project" };
    const expected = 'expected an absolute path, not "project"';
    const notAbsolute = (method: string) => ({
      code: -32602,
      message: `${method}: cwd: ${expected}`,
      data: { method, cwd: "project", problems: [{ path: ["cwd"], message: expected }] },
    });
    expect(await refusal(agent.client.request(acp.methods.agent.session.load, relative))).toEqual(
      notAbsolute("session/load"),
    );
    expect(await refusal(agent.client.request(acp.methods.agent.session.resume, relative))).toEqual(
      notAbsolute("session/resume"),
    );
    // session/list's filter too (a fresh user's trial: it answered an empty list, which reads
    // as "no sessions"); the same filter, absolute, finds the session.
    const list = (cwd: string) => agent.client.request(acp.methods.agent.session.list, { cwd });
    expect(await refusal(list("project"))).toEqual(notAbsolute("session/list"));
    expect(await list(fixture.cwd)).toMatchObject({ sessions: [{ sessionId, cwd: fixture.cwd }] });
    expect(agent.updates(sessionId)).toEqual([]);
    expect(await fixture.persisted(sessionId)).toEqual(before);
    const link = join(elsewhere, "link");
    await symlink(fixture.cwd, link);
    const linked = agent.client.request(acp.methods.agent.session.load, { ...params, cwd: link });
    expect(await refusal(linked)).toBe("answered");
    expect(await agent.end()).toBe(0);
    expect(agent.stderr).toBe("");
  } finally {
    await rm(elsewhere, { recursive: true, force: true });
  }
});
