import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { approveAll, CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { fixtureForFile } from "./support.js";

/**
 * Auth and lifecycle as an app on the official `@github/copilot-sdk` sees them with turnloop as
 * its CLI: the connection token, reading a disconnected session, and a server that goes away
 * with the app that started it.
 */

const fixture = fixtureForFile();
const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.connect(port, "127.0.0.1");
  });
}

describe("auth and lifecycle", () => {
  test("a wrong or missing connection token fails with AUTHENTICATION_FAILED; the right one connects", async () => {
    const good = new CopilotClient({
      connection: RuntimeConnection.forTcp({
        path: CLI_PATH,
        env: fixture.env,
        connectionToken: "right-token",
      }),
      workingDirectory: fixture.cwd,
    });
    await good.start();
    const port = (good as unknown as { runtimePort: number }).runtimePort;
    const wrong = new CopilotClient({
      connection: RuntimeConnection.forUri(`localhost:${port}`, { connectionToken: "wrong" }),
    });
    const missing = new CopilotClient({
      connection: RuntimeConnection.forUri(`localhost:${port}`),
    });
    try {
      await expect(good.ping("hi")).resolves.toMatchObject({ message: "pong: hi" });
      await expect(wrong.start()).rejects.toThrow(/AUTHENTICATION_FAILED/);
      await expect(missing.start()).rejects.toThrow(/AUTHENTICATION_FAILED/);
    } finally {
      await Promise.all([wrong.stop(), missing.stop()]);
      await good.stop();
    }
  });

  test("a disconnected session cannot be read until it is resumed", async () => {
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env }),
      workingDirectory: fixture.cwd,
    });
    await client.start();
    try {
      const live: string[] = [];
      const session = await client.createSession({
        onPermissionRequest: approveAll,
        onEvent: (event) => live.push(event.type),
      });
      // session.start arrives live, before createSession resolves.
      expect(live).toEqual(["session.start"]);
      expect((await session.getEvents()).map((event) => event.type)).toEqual(["session.start"]);
      await session.disconnect();
      await expect(session.getEvents()).rejects.toThrow(/Session not found/);
      const resumed = await client.resumeSession(session.sessionId, {
        onPermissionRequest: approveAll,
      });
      expect((await resumed.getEvents()).map((event) => event.type)).toEqual([
        "session.start",
        "session.shutdown",
        "session.resume",
      ]);
      await resumed.disconnect();
    } finally {
      await client.stop();
    }
  });

  test("a TCP server an app started exits when the app dies", async () => {
    // The app: a Node process that starts turnloop over TCP through the SDK and prints the port.
    const app = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
         const client = new CopilotClient({ connection: RuntimeConnection.forTcp({ path: ${JSON.stringify(CLI_PATH)} }) });
         await client.start();
         console.log("PORT " + client.runtimePort);
         setInterval(() => {}, 1000);`,
      ],
      {
        cwd: REPOSITORY,
        env: { ...process.env, ...fixture.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const port = await new Promise<number>((resolve, reject) => {
      let output = "";
      app.stdout.setEncoding("utf8").on("data", (text: string) => {
        output += text;
        const match = /PORT (\d+)/.exec(output);
        if (match !== null) {
          resolve(Number(match[1]));
        }
      });
      app.once("exit", (code) => reject(new Error(`the app exited (${code}) before starting`)));
    });
    expect(await canConnect(port)).toBe(true);
    app.kill("SIGKILL");
    await expect.poll(() => canConnect(port)).toBe(false);
  }, 20_000);
});
