import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TurnloopClient } from "../../src/sdk/index.js";
import { fixtureForFile } from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

const fixture = fixtureForFile();
let tcp: TcpServer;

beforeAll(async () => {
  tcp = await startTcpServer(fixture);
});
afterAll(async () => {
  tcp.process.kill("SIGCONT");
  await tcp.stop();
});

// Issue 22's chaos trial kills workers with `kill -9`: a client whose calls were in flight must
// get an error, not wait forever (vscode-jsonrpc leaves requests pending on a mere close).
describe("our SDK over TCP when the server is killed", () => {
  test("calls in flight reject with a clear error and the client stays usable for errors", async () => {
    const client = new TurnloopClient({ port: tcp.port, cwd: fixture.cwd });
    const session = await client.createSession({});
    // Frozen, the server reads nothing: both requests are surely in flight when it dies.
    tcp.process.kill("SIGSTOP");
    const creating = client.createSession({});
    const prompting = session.sendAndWait({ prompt: "hello" }, 600_000);
    const outcomes = Promise.allSettled([creating, prompting]);
    tcp.process.kill("SIGKILL");
    await tcp.exited;
    const [created, prompted] = await outcomes;
    expect(created).toEqual({
      status: "rejected",
      reason: new Error("the turnloop server connection closed before answering session.create"),
    });
    expect(prompted.status).toBe("rejected");
    await expect(client.createSession({})).rejects.toThrow(/connect|closed/);
    await client.stop();
  });
});
