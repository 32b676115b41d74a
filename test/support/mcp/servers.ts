import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../../../src/tools/mcp/config.js";

/** The test MCP server (see its header for the tools and flags). */
export const TEST_SERVER = fileURLToPath(new URL("./test-server.mjs", import.meta.url));

/** A stdio config running the test server with `flags`. */
export function stdioServer(...flags: string[]): McpServerConfig {
  return { type: "stdio", command: process.execPath, args: [TEST_SERVER, ...flags], env: {} };
}

/** The same, in the `.mcp.json` / Copilot SDK shape. */
export function stdioEntry(...flags: string[]) {
  return { command: process.execPath, args: [TEST_SERVER, ...flags] };
}

/** The JSON lines the test server wrote with `--log FILE`. */
export function serverLog(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) {
    return [];
  }
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves once `predicate` holds for the log, polling every 20 ms (up to 10 s). */
export async function waitForLog(
  file: string,
  predicate: (entries: Array<Record<string, unknown>>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const entries = serverLog(file);
    if (predicate(entries)) {
      return entries;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the server log never matched: ${JSON.stringify(serverLog(file))}`);
}

/** Pids of the test servers (and their children) that logged to `file` and are still alive. */
export function livePids(file: string): number[] {
  const pids = serverLog(file).flatMap((entry) => [
    ...(typeof entry.pid === "number" ? [entry.pid] : []),
    ...(typeof entry.grandchild === "number" ? [entry.grandchild] : []),
  ]);
  return [...new Set(pids)].filter(isAlive);
}

/** Whether `/proc/<pid>` is a live (not zombie) process. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Starts the test server over Streamable HTTP on 127.0.0.1; resolves with its URL. */
export async function startHttpServer(
  ...flags: string[]
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [TEST_SERVER, "--http", ...flags], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const match = /listening (\d+)/.exec(text);
      if (match?.[1] !== undefined) {
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`the HTTP test server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}
