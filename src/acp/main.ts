import type { FaceOptions } from "../cli/arguments.js";

/**
 * Runs `turnloop acp`: an Agent Client Protocol v1 agent on stdin/stdout until stdin closes.
 * @returns the process exit code.
 */
export async function runAcpCommand(_options: FaceOptions): Promise<number> {
  process.stderr.write("turnloop acp: not available yet\n");
  return 1;
}
