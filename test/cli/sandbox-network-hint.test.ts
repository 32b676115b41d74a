import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import {
  commandsThroughCli,
  oneCommandThroughCli,
  sharedCommandsRun,
} from "../support/one-command.js";
import { requireSandbox } from "../support/sandbox.js";

/**
 * A fresh user's trial: a command that could not reach a server on 127.0.0.1 inside `--sandbox`
 * (curl's "Couldn't connect to server", Node's ECONNREFUSED) ended with no word of the closed
 * network, since only some tools' wording was known. Each tool here fails as it does in the
 * sandbox's network namespace (loopback only: the host's listener is out of reach; no name
 * server), and its result ends with the one line that names the closed network and the flag and
 * config key that open it. A command failing for another reason, or refused with the network on,
 * gets no such line.
 */

let server: FakeModelServer;
let home: string;
let workspace: string;
/** The fake model's port: something listens there on the host, not in the sandbox. */
let port: string;
const sandboxWorks = await requireSandbox();

beforeAll(async () => {
  server = await startFakeModelServer();
  port = new URL(server.url).port;
  home = await mkdtemp(join(tmpdir(), "turnloop-network-hint-home-"));
  workspace = await mkdtemp(join(tmpdir(), "turnloop-network-hint-workspace-"));
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

/** Has the model run `command` once through `turnloop -p` with `flags` (test/support/one-command.ts). */
function runThroughCli(command: string, flags: readonly string[]) {
  return oneCommandThroughCli(server, command, {
    cwd: workspace,
    home,
    flags,
    prompt: "reach the server",
  });
}

/** A port nothing listens on, on the host either: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") {
    throw new Error("no port");
  }
  return address.port;
}

const SANDBOX = ["--sandbox", "workspace-write", "--yolo"];

function stoppedLine(printed: string): string {
  return (
    `The sandbox stopped this command: the sandbox has no network (${printed}). It was not run ` +
    "outside the sandbox: no terminal to ask on; rerun with --sandbox-network or " +
    "sandbox.network: true in a config file (sandboxed commands may use the network), or run " +
    "-p on a terminal to be asked."
  );
}

describe.runIf(sandboxWorks)("a sandboxed command the closed network stopped", () => {
  // The tests whose commands' tool results alone are asserted take them from one `-p` child
  // (each call's result judged on its own, each command in a bubblewrap of its own, one after
  // another in the tests' order).
  const shared = sharedCommandsRun(
    () => server,
    () => ({ cwd: workspace, home, flags: SANDBOX, prompt: "reach the server" }),
  );
  // The five tests' 27 commands: each test had the processes' 40 s; under load they took 5-14 s.
  beforeAll(shared.run, 120_000);

  test("curl to 127.0.0.1: the whole -p output ends with the network line", async () => {
    const command = `curl -sS http://127.0.0.1:${port}/`;
    const result = await runThroughCli(command, SANDBOX);
    const printed = `Failed to connect to 127.0.0.1 port ${port}`;
    const curlLine = `curl: (7) ${printed} after N ms: Couldn't connect to server`;
    expect({
      ...result,
      stderr: result.stderr
        .replace(/after \d+ ms/, "after N ms")
        .replace(/\([\d.]+ (?:ms|s|min)\)/, "(N ms)")
        .replace(/· [\d.]+ s · session \S+/, "· session ID"),
      toolResult: result.toolResult.replace(/after \d+ ms/, "after N ms"),
    }).toEqual({
      code: 0,
      signal: null,
      stdout: "Done.\n",
      stderr:
        `✗ bash ${command} failed (exit code 7) (N ms)\n` +
        `    ${curlLine}\n` +
        `    ${stoppedLine(printed)}\n` +
        "2 turns · 1 call refused · 20 in / 10 out tokens · session ID\n",
      toolResult: `${curlLine}\n<exited with exit code 7>\n${stoppedLine(printed)}`,
    });
  });

  const node = (script: string) => `node -e ${JSON.stringify(script)}`;
  const lookups = shared.add(() => [
    node(
      `require("http").get("http://127.0.0.1:${port}/").on("error", (e) => { console.error(e.message); process.exit(1); })`,
    ),
    "curl -sS https://registry.npmjs.org/",
    node(
      `require("dns").lookup("registry.npmjs.org", (e) => { console.error(e.message); process.exit(1); })`,
    ),
  ]);
  test("Node's refused connection and a failed name lookup (curl, Node) say the same", async () => {
    const [refused, curlLookup, nodeLookup] = await lookups();
    expect(refused).toBe(
      `connect ECONNREFUSED 127.0.0.1:${port}\n<exited with exit code 1>\n${stoppedLine("ECONNREFUSED")}`,
    );
    expect(curlLookup).toBe(
      "curl: (6) Could not resolve host: registry.npmjs.org\n<exited with exit code 6>\n" +
        stoppedLine("Could not resolve host"),
    );
    const code = /getaddrinfo (EAI_AGAIN|ENOTFOUND)/.exec(nodeLookup ?? "")?.[0] ?? "none";
    expect(nodeLookup).toBe(
      `${code} registry.npmjs.org\n<exited with exit code 1>\n${stoppedLine(code)}`,
    );
  });

  // A fresh user's check: `curl -s` prints nothing, so there was no output to match and no line.
  const silent = shared.add(() => [
    `curl -s http://127.0.0.1:${port}/`,
    "cd . && curl -s https://registry.npmjs.org/",
    `wget -q -O - http://127.0.0.1:${port}/`,
    "sh -c 'exit 7'",
  ]);
  test("a silent curl or wget is known by its exit code (curl 7, 6; wget 4)", async () => {
    expect(await silent()).toEqual([
      `<exited with exit code 7>\n${stoppedLine("curl exit code 7: could not connect")}`,
      `<exited with exit code 6>\n${stoppedLine("curl exit code 6: could not resolve the host")}`,
      `<exited with exit code 4>\n${stoppedLine("wget exit code 4: network failure")}`,
      "<exited with exit code 7>",
    ]);
  });

  // A fresh user's check: any command that mentioned curl and exited 5, 6 or 7 got the line, and
  // -p offered to run it outside the sandbox for a false reason; `/usr/bin/curl` got none. Now
  // the code counts only when the program whose status the shell returned is the client.
  const exitCodeCases = (): Array<[string, string | undefined]> => [
    ['echo "see the curl docs"; exit 6', undefined],
    ["curl --version >/dev/null; exit 7", undefined],
    ["make curl; exit 5", undefined],
    ["curl -s http://127.0.0.1:1/ && echo reached; exit 7", undefined],
    [`/usr/bin/curl -s http://127.0.0.1:${port}/`, "curl exit code 7: could not connect"],
    [`env curl -s http://127.0.0.1:${port}/`, "curl exit code 7: could not connect"],
    [
      `echo trying; command curl -s http://127.0.0.1:${port}/`,
      "curl exit code 7: could not connect",
    ],
    [`curl -s http://127.0.0.1:${port}/ | cat`, undefined],
  ];
  const exitCodes = shared.add(() => exitCodeCases().map(([command]) => command));
  test("an exit code counts only when the client itself returned it", async () => {
    const cases = exitCodeCases();
    const toolResults = await exitCodes();
    const expected = cases.map(([command, evidence], index) => {
      const exit = /<exited with exit code (\d+)>/.exec(toolResults[index] ?? "")?.[0];
      const hint = evidence === undefined ? [] : [stoppedLine(evidence)];
      return { command, lines: [exit, ...hint] };
    });
    expect(
      cases.map(([command], index) => ({
        command,
        lines: (toolResults[index] ?? "").split("\n").slice(-(expected[index]?.lines.length ?? 1)),
      })),
    ).toEqual(expected);
  });

  // A fresh user's check: `curl -sS https://x | head` exits with head's 0, and the result said
  // nothing of the closed network although curl printed why on stderr.
  const exitedZero = shared.add(() => [
    "curl -sS https://registry.npmjs.org/ | head -c 5",
    "git ls-remote https://github.com/example/example; echo listed",
    `wget -O - http://127.0.0.1:${port}/ 2>&1 | tail -n 1`,
    "curl https://registry.npmjs.org/ | cat",
    "echo 'curl: (6) Could not resolve host: x' > notes.txt && grep -r 'Could not resolve host' .",
    "echo 'ssh: Connection refused'; echo 'npm error code EAI_AGAIN is documented'",
  ]);
  test("a command that exits 0 after a client's network error gets the note; other words do not", async () => {
    const toolResults = await exitedZero();
    const note = (line: string) =>
      `Note: the command exited 0, but it could not reach the network: the sandbox has no network (${line}). To reach it, run the network command alone, so that it fails when it cannot (no pipe after it, no \`|| true\`): when the sandbox stops it, the user is asked whether to allow the network.`;
    const curlLine = "curl: (6) Could not resolve host: registry.npmjs.org";
    const gitLine =
      "fatal: unable to access 'https://github.com/example/example/': Could not resolve host: github.com";
    const wgetLine = `Connecting to 127.0.0.1:${port}... failed: Connection refused.`;
    expect([...toolResults.slice(0, 3), toolResults[3]?.split("\n").slice(-2)]).toEqual([
      `${curlLine}\n<exited with exit code 0>\n${note(curlLine)}`,
      `${gitLine}\nlisted\n<exited with exit code 0>\n${note(gitLine)}`,
      `${wgetLine}\n<exited with exit code 0>\n${note(wgetLine)}`,
      // After curl's progress meter, on its line.
      ["<exited with exit code 0>", note(curlLine)],
    ]);
    expect(toolResults.slice(4)).toEqual([
      "./notes.txt:curl: (6) Could not resolve host: x\n<exited with exit code 0>",
      "ssh: Connection refused\nnpm error code EAI_AGAIN is documented\n<exited with exit code 0>",
    ]);
  });

  // Trial 31: `npm … 2>&1 | tail -3` cut npm's `npm error code EAI_AGAIN` line away, and the
  // result said nothing of the closed network. Any client line of a failed lookup a tail leaves
  // is enough now (network-refusals.ts); a line that only mentions the words is not.
  const tails = shared.add(() => [
    "npm view left-pad version --cache .npm-cache 2>&1 | tail -n 2",
    `${node('require("https").get("https://registry.npmjs.org/")')} 2>&1 | tail -n 7`,
    `python3 -c ${JSON.stringify('import urllib.request; urllib.request.urlopen("https://pypi.org/")')} 2>&1 | tail -n 1`,
    "printf \"  code: 'EAI_AGAIN',\\n  retryable: true,\\n\" > retry.txt && cat retry.txt",
    "printf 'if (code === \"EAI_AGAIN\") retry();\\n' > retry.js && grep -n EAI_AGAIN retry.js",
    "echo ' ✓ retries after getaddrinfo EAI_AGAIN registry.npmjs.org (3 ms)'",
  ]);
  test("the exit-0 note is known from whichever client lines a tail left", async () => {
    const toolResults = await tails();
    const note = (line: string) =>
      `Note: the command exited 0, but it could not reach the network: the sandbox has no network (${line}). To reach it, run the network command alone, so that it fails when it cannot (no pipe after it, no \`|| true\`): when the sandbox stops it, the user is asked whether to allow the network.`;
    // The name server's answer decides EAI_AGAIN or ENOTFOUND; Python says it in its own words.
    const lookup = /getaddrinfo (EAI_AGAIN|ENOTFOUND)/.exec(toolResults[0] ?? "")?.[1] ?? "none";
    const pythonWords = /\[Errno -?\d+\] [^>]+/.exec(toolResults[2] ?? "")?.[0] ?? "none";
    expect(toolResults.slice(0, 3).map((result) => result.split("\n").slice(-2))).toEqual([
      [
        "<exited with exit code 0>",
        note(
          `npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ${lookup} registry.npmjs.org`,
        ),
      ],
      ["<exited with exit code 0>", note(`code: '${lookup}',`)],
      ["<exited with exit code 0>", note(`urllib.error.URLError: <urlopen error ${pythonWords}>`)],
    ]);
    expect(toolResults.slice(3)).toEqual([
      "  code: 'EAI_AGAIN',\n  retryable: true,\n<exited with exit code 0>",
      '1:if (code === "EAI_AGAIN") retry();\n<exited with exit code 0>',
      " ✓ retries after getaddrinfo EAI_AGAIN registry.npmjs.org (3 ms)\n<exited with exit code 0>",
    ]);
  });

  test("no network line for a command failing otherwise, nor for a refusal with the network on", async () => {
    const missing = await runThroughCli("ls /no-such-folder", SANDBOX);
    expect(missing.toolResult).toBe(
      "ls: cannot access '/no-such-folder': No such file or directory\n<exited with exit code 2>",
    );
    const closed = await closedPort();
    const command = `curl -sS http://127.0.0.1:${closed}/`;
    // The network on: both commands in one -p run.
    const [open, piped] = await commandsThroughCli(server, [command, `${command} | cat`], {
      cwd: workspace,
      home,
      flags: [...SANDBOX, "--sandbox-network"],
      prompt: "reach the server",
    });
    expect(open?.replace(/after \d+ ms/, "after N ms")).toBe(
      `curl: (7) Failed to connect to 127.0.0.1 port ${closed} after N ms: Couldn't connect to server\n` +
        "<exited with exit code 7>",
    );
    expect(piped?.replace(/after \d+ ms/, "after N ms")).toBe(
      `curl: (7) Failed to connect to 127.0.0.1 port ${closed} after N ms: Couldn't connect to server\n` +
        "<exited with exit code 0>",
    );
  });
});
