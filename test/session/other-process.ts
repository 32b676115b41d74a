/**
 * Another process working on the same store as the test (the store contract's cross-process
 * cases): a Node script importing the built store from `dist/`, given its input as JSON on stdin.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";

/**
 * The body of a module script that opens a session with `openStore` (an expression giving a
 * store, in scope: `argv`, the script's arguments), appends `events` from its stdin committing
 * after every `commitEvery`, closes the appender, then runs `closeStore`.
 */
export function appendingScript(openStore: string, closeStore = ""): string {
  return `
const argv = process.argv.slice(1);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { sessionId, events, commitEvery } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const store = ${openStore};
const { appender } = await store.open(sessionId);
for (const [index, event] of events.entries()) {
  appender.append(event);
  if ((index + 1) % commitEvery === 0) await appender.commit();
}
await appender.close();
${closeStore}
`;
}

/**
 * Runs `script` as an ES module with `args` and `input` (as JSON) on its stdin; resolves once it
 * exited with 0.
 * @throws Error with its exit status and stderr otherwise.
 */
export async function runScript(script: string, args: string[], input: unknown): Promise<void> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, ...args], {
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(JSON.stringify(input));
  const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
  if (code !== 0) {
    throw new Error(`the other process ended with ${code ?? signal}: ${stderr}`);
  }
}
