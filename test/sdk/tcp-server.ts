import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { CLI_PATH } from "../support/cli.js";
import type { Fixture } from "./support.js";

/** `turnloop --headless --port 0` of the built CLI, listening. */
export interface TcpServer {
  process: ChildProcessWithoutNullStreams;
  port: number;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** An official `@github/copilot-sdk` client connected to it, started; stopped by `stop`. */
  copilotClient(): Promise<CopilotClient>;
  /** Stops the clients made here and kills the server if it still runs. */
  stop(): Promise<void>;
}

/**
 * Starts the built CLI's TCP server in the fixture's folder with the fixture's env; `env` adds to
 * it, `args` to its arguments (e.g. `["--cwd", folder]`).
 */
export async function startTcpServer(
  fixture: Fixture,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<TcpServer> {
  const child = spawn(process.execPath, [CLI_PATH, "--headless", "--port", "0", ...args], {
    env: { ...fixture.env, ...env },
    cwd: fixture.cwd,
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      const match = /listening on port (\d+)/i.exec(output);
      if (match !== null) {
        resolve(Number(match[1]));
      }
    });
    child.once("exit", () => reject(new Error("the server exited before listening")));
  });
  const clients: CopilotClient[] = [];
  return {
    process: child,
    port,
    exited,
    copilotClient: async () => {
      const client = new CopilotClient({
        connection: RuntimeConnection.forUri(`127.0.0.1:${port}`),
        workingDirectory: fixture.cwd,
      });
      clients.push(client);
      await client.start();
      return client;
    },
    stop: async () => {
      await Promise.all(clients.map((client) => client.forceStop()));
      if (child.exitCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}
