import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "vitest";
import { ChildFixture } from "./child-process.js";

// A trial of session 17's build (round 3, session 18, #1): `turnloop acp` started in a folder whose
// `.turnloop/config.json` is invalid refused every `session/new` and `session/load`, even of
// folders whose config is fine; and one started in a good folder answered "Internal error" for a
// session in a folder with an invalid file. Config is per folder (src/session/session-runs.ts `in`):
// that folder's requests fail naming the file and key, the others work, and the agent stays up.

const fixture = ChildFixture.forEachTest();
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

/** Writes an invalid `.turnloop/config.json` in `folder`; the refusal that names it. */
async function invalidConfig(folder: string, opening: string): Promise<Refusal> {
  await mkdir(join(folder, ".turnloop"), { recursive: true });
  const file = join(folder, ".turnloop", "config.json");
  await writeFile(file, '{"maxTurns": "many"}\n');
  return {
    code: -32603,
    message: `turnloop cannot ${opening}: the session's folder ${folder}: ${file}: maxTurns: must be a number, not the string "many"`,
  };
}

async function project(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-project-"));
  folders.push(folder);
  return folder;
}

interface Refusal {
  code?: number;
  message?: string;
}

function outcome<T>(request: Promise<T>): Promise<T | Refusal> {
  return request.catch((error: Refusal) => ({ code: error.code, message: error.message }));
}

test("started in a folder with an invalid config: sessions of other folders are created, prompted and loaded; that folder's are refused", async () => {
  const refusal = await invalidConfig(fixture.cwd, "start the session");
  const good = await project();
  const agent = fixture.startAgent();
  await agent.initialize();
  const created = await outcome(
    agent.client.request(acp.methods.agent.session.new, { cwd: good, mcpServers: [] }),
  );
  expect(created).toHaveProperty("sessionId");
  const { sessionId } = created as acp.NewSessionResponse;
  fixture.server.enqueue({ text: "Hello from elsewhere." });
  expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  await agent.client.request(acp.methods.agent.session.close, { sessionId });
  const loaded = await outcome(
    agent.client.request(acp.methods.agent.session.load, { sessionId, cwd: good, mcpServers: [] }),
  );
  expect(loaded).not.toHaveProperty("code");
  const here = await outcome(
    agent.client.request(acp.methods.agent.session.new, { cwd: fixture.cwd, mcpServers: [] }),
  );
  expect(here).toEqual(refusal);
  expect(agent.stderr).toContain(`sessions in ${fixture.cwd} are refused until it is fixed`);
  expect(await agent.end()).toBe(0);
});

test("started in a good folder: a session in a folder with an invalid config is refused naming it, the agent serves the next request", async () => {
  const bad = await project();
  const good = await project();
  const agent = fixture.startAgent();
  await agent.initialize();
  // A session of `good`, whose file becomes invalid after it was closed.
  const { sessionId } = await agent.client.request(acp.methods.agent.session.new, {
    cwd: good,
    mcpServers: [],
  });
  fixture.server.enqueue({ text: "First." });
  expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  await agent.client.request(acp.methods.agent.session.close, { sessionId });
  const loadRefusal = await invalidConfig(good, `open session ${sessionId}`);
  const newRefusal = await invalidConfig(bad, "start the session");
  const answers = [
    await outcome(
      agent.client.request(acp.methods.agent.session.new, { cwd: bad, mcpServers: [] }),
    ),
    await outcome(
      agent.client.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: good,
        mcpServers: [],
      }),
    ),
  ];
  expect(answers).toEqual([newRefusal, loadRefusal]);
  // The refused load wrote nothing (session-18 brief #11): no session.resume.
  const types = (await fixture.persisted(sessionId)).map((event) => event.type);
  expect(types.filter((type) => type === "session.resume")).toEqual([]);
  expect(await agent.newSession()).toEqual(expect.any(String));
  expect(fixture.server.requests).toHaveLength(1);
  expect(await agent.end()).toBe(0);
});

// Trial 34, HIGH 2 and 5: a session/new for a repository whose `.turnloop/config.json` is a FIFO
// froze the whole agent (a blocking read on its main thread, deaf to SIGTERM), and one holding a
// short secret came back quoted in the -32603 error. Now: refused at once, the next folder's
// session is created, and the error says where, never what.
test("a project config that is a FIFO or quotes a secret is refused at once without its content; the agent serves the next folder", async () => {
  const fifo = await project();
  await mkdir(join(fifo, ".turnloop"));
  const fifoFile = join(fifo, ".turnloop", "config.json");
  execFileSync("mkfifo", [fifoFile]);
  const secret = await project();
  await mkdir(join(secret, ".turnloop"));
  const secretFile = join(secret, ".turnloop", "config.json");
  await writeFile(secretFile, "PRIVATE-KEY-SSH-XYZ\n");
  const good = await project();
  const agent = fixture.startAgent();
  try {
    await agent.initialize();
    const refusals = [
      await outcome(
        agent.client.request(acp.methods.agent.session.new, { cwd: fifo, mcpServers: [] }),
      ),
      await outcome(
        agent.client.request(acp.methods.agent.session.new, { cwd: secret, mcpServers: [] }),
      ),
    ];
    expect(refusals).toEqual([
      {
        code: -32603,
        message: `turnloop cannot start the session: the session's folder ${fifo}: ${fifoFile} is not a regular file (a FIFO); only a regular file is read`,
      },
      {
        code: -32603,
        message: `turnloop cannot start the session: the session's folder ${secret}: ${secretFile} is not valid JSON: line 1, column 1: Unexpected character`,
      },
    ]);
    const created = await agent.client.request(acp.methods.agent.session.new, {
      cwd: good,
      mcpServers: [],
    });
    expect(created).toHaveProperty("sessionId");
    expect(agent.stderr).not.toContain("PRIVATE");
    expect(await agent.end()).toBe(0);
  } finally {
    // A reader blocked on the FIFO (the old code) is let go.
    try {
      closeSync(openSync(fifoFile, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // Gone with its folder: nothing waits on it.
    }
  }
});
