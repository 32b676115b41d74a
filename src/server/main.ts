import type { FaceOptions } from "../cli/arguments.js";

/**
 * Runs `turnloop --headless` / `turnloop serve`: the SDK's JSON-RPC server.
 * @returns the process exit code.
 */
export async function runServerCommand(
  _options: FaceOptions & { transport: { stdio: true } | { port: number } },
): Promise<number> {
  process.stderr.write("turnloop --headless: not available yet\n");
  return 1;
}
