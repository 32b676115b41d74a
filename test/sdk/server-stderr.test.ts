import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { fixtureForFile } from "./support.js";

/**
 * Round 3 session 46, lane fixsdk (trial finding F4): the stderr of a server `turnloop/sdk`
 * spawns reaches the app's own stderr, each line prefixed `[turnloop server] `, unless the app
 * passes `onStderr`, from the server's answer to `connect` on (round 3 session 47: before it, the
 * rejection alone says it). An app of its own process (the built `dist/sdk`), so what is asserted
 * is what its developer sees on the terminal.
 */
const fixture = fixtureForFile();
const SDK = fileURLToPath(new URL("../../dist/sdk/index.js", import.meta.url));

/** An app that opens a session and stops, its own `onStderr` collecting when `own` is set. */
function app(own: boolean): string {
  return `
import { TurnloopClient } from ${JSON.stringify(SDK)};
const seen = [];
const client = new TurnloopClient({
  cliPath: ${JSON.stringify(CLI_PATH)},
  ${own ? "onStderr: (text) => seen.push(text)," : ""}
});
await client.createSession({});
await client.stop();
process.stdout.write(JSON.stringify(seen.join("")));
`;
}

async function runApp(own: boolean): Promise<{ stdout: string; stderr: string }> {
  const script = join(fixture.cwd, `app-${own ? "own" : "default"}.mjs`);
  await writeFile(script, app(own));
  return promisify(execFile)(process.execPath, [script], { cwd: fixture.cwd, env: fixture.env });
}

/** An app whose server refuses its settings at start: what the app's `createSession` rejected with. */
const FAILING_APP = `
import { TurnloopClient } from ${JSON.stringify(SDK)};
const client = new TurnloopClient({ cliPath: ${JSON.stringify(CLI_PATH)} });
const failure = await client.createSession({}).catch((error) => error);
await client.stop();
process.stdout.write(JSON.stringify(String(failure)));
`;

describe("the spawned server's stderr", () => {
  test("a server that fails to start says why once: in the rejection, not on the app's stderr too", async () => {
    // Round 3 session 46's check: the reason came as a [turnloop server] line, then again in the
    // rejection's "server stderr:"; the rejection is the one an app without a terminal has.
    const script = join(fixture.cwd, "app-failing.mjs");
    await writeFile(script, FAILING_APP);
    const env = { ...fixture.env, TURNLOOP_CONTEXT_WINDOW: "abc" };
    const seen = await promisify(execFile)(process.execPath, [script], { cwd: fixture.cwd, env });
    expect(seen).toEqual({
      stdout: JSON.stringify(
        'Error: the turnloop server connection closed before answering connect\nserver stderr: turnloop: TURNLOOP_CONTEXT_WINDOW must be a whole number ≥ 1000 (tokens, as --context-window), not "abc"',
      ),
      stderr: "",
    });
  });

  test("goes to the app's stderr line by line, prefixed; an app's onStderr takes it instead", async () => {
    await writeFile(join(fixture.home, "config.json"), '{"maxTurn": 3}\n');
    const warning = `turnloop: warning: ${join(fixture.home, "config.json")}: unknown key "maxTurn" (did you mean "maxTurns"?) ignored`;
    expect(await runApp(false)).toEqual({ stdout: '""', stderr: `[turnloop server] ${warning}\n` });
    expect(await runApp(true)).toEqual({ stdout: JSON.stringify(`${warning}\n`), stderr: "" });
  });
});
