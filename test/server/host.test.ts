import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, test } from "vitest";
import { CLI_PATH, cleanEnvironment, runCli } from "../support/cli.js";
import { makeHome } from "../support/test-home.js";
import { RawPeer } from "./raw-peer.js";

/** Issue 22: workers reachable from other machines (`--host`), only with a connection token. */

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true })));
});

async function environment(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const home = await makeHome("turnloop-host-");
  folders.push(home);
  return cleanEnvironment({ TURNLOOP_HOME: home, ...extra });
}

describe("turnloop --headless --port N --host H", () => {
  test("beyond loopback, refuses to start without a connection token", async () => {
    const result = await runCli(["--headless", "--port", "0", "--host", "0.0.0.0"], {
      cwd: tmpdir(),
      env: await environment(),
    });
    expect(result).toEqual({
      code: 64,
      signal: null,
      stdout: "",
      stderr:
        "turnloop: refusing to listen on 0.0.0.0 without a connection token: set TURNLOOP_CONNECTION_TOKEN (clients send it with connect)\n",
    });
  });

  test("with a token, listens on that host and asks every connection for the token", async () => {
    const server = spawn(
      process.execPath,
      [CLI_PATH, "--headless", "--port", "0", "--host", "0.0.0.0"],
      {
        env: await environment({ TURNLOOP_CONNECTION_TOKEN: "s3cret" }),
        cwd: tmpdir(),
      },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let output = "";
        server.stdout.setEncoding("utf8").on("data", (text: string) => {
          output += text;
          const match = /^turnloop server listening on port (\d+)\n/.exec(output);
          if (match !== null) {
            resolve(Number(match[1]));
          }
        });
        server.once("exit", () => reject(new Error("the server exited before listening")));
      });
      const socket = new Socket();
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.connect(port, "127.0.0.1", () => resolve());
      });
      const peer = new RawPeer(socket, socket);
      expect((await peer.request("ping", {})).error?.code).toBe(-32001);
      expect((await peer.request("connect", { token: "s3cret" })).result).toMatchObject({
        ok: true,
      });
      socket.destroy();
    } finally {
      server.kill("SIGKILL");
    }
  });
});
