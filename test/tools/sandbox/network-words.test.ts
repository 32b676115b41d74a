import { describe, expect, it } from "vitest";
import { networkRefusedDespiteSuccess } from "../../../src/tools/sandbox/network-refusals.js";

/**
 * Which lines left by a `| tail` tell that a command exiting 0 could not reach the closed
 * network (trial 31, LOW 8: `npm … 2>&1 | tail -3` cut npm's `npm error code EAI_AGAIN` line
 * away, and the result said nothing). The outputs are the clients' own, captured in a network
 * namespace without the network (bubblewrap's --unshare-net); the end-to-end runs are in
 * test/cli/sandbox-network-hint.test.ts. Output that only mentions the words is no evidence.
 */

/** The line the note quotes, or `undefined` when there is no note. */
function quoted(output: string): string | undefined {
  const note = networkRefusedDespiteSuccess(output, 0, false);
  return note === undefined ? undefined : /no network \((.*)\)\. To reach it/.exec(note)?.[1];
}

const PIP_WARNING =
  "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f78d264d090>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/left-pad/";

describe("the exit-0 network note, from the lines a tail left", () => {
  it("knows each client's line, whichever of its lines are left", () => {
    const outputs = [
      // npm view … | tail -2: the request line, without the code lines above it.
      "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\nnpm error A complete log of this run can be found in: /tmp/.npm/_logs/2026-12-06T05_57_07_092Z-debug-0.log\n",
      // | tail -4: npm's errno and syscall lines.
      "npm error errno EAI_AGAIN\nnpm error syscall getaddrinfo\n",
      "npm error syscall getaddrinfo\n",
      // Node's inspection of an uncaught lookup error (| tail -7).
      "  errno: -3001,\n  code: 'EAI_AGAIN',\n  syscall: 'getaddrinfo',\n  hostname: 'registry.npmjs.org'\n}\n\nNode.js v20.20.2\n",
      "TypeError: fetch failed\n  [cause]: Error: getaddrinfo ENOTFOUND registry.npmjs.org\n",
      "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n",
      "               ^^^^^^^^^^\nsocket.gaierror: [Errno -3] Temporary failure in name resolution\n",
      // pip install … | tail -3.
      `${PIP_WARNING}\nERROR: Could not find a version that satisfies the requirement left-pad (from versions: none)\nERROR: No matching distribution found for left-pad\n`,
      // cargo search … | tail -2.
      "Caused by:\n  [6] Could not resolve hostname (Could not resolve host: index.crates.io)\n",
    ];
    expect(outputs.map(quoted)).toEqual([
      "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
      "npm error errno EAI_AGAIN",
      "npm error syscall getaddrinfo",
      "code: 'EAI_AGAIN',",
      "[cause]: Error: getaddrinfo ENOTFOUND registry.npmjs.org",
      "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
      "socket.gaierror: [Errno -3] Temporary failure in name resolution",
      `${PIP_WARNING.slice(0, 199)}…`,
      "[6] Could not resolve hostname (Could not resolve host: index.crates.io)",
    ]);
  });

  it("gives no note for output that only mentions the words", () => {
    const outputs = [
      // grep and cat of code that handles the errors.
      'src/retry.js:3:  if (error.code === "EAI_AGAIN" || error.code === "ENOTFOUND") return retry();\n',
      "  code: 'EAI_AGAIN',\n  retryable: true,\n",
      "const reason = 'getaddrinfo EAI_AGAIN registry.npmjs.org';\n",
      // A test runner's names, a document's sentences.
      " ✓ retries after getaddrinfo EAI_AGAIN registry.npmjs.org (3 ms)\n",
      "Troubleshooting: Temporary failure in name resolution means no name server answered.\n",
      "docs/network.md:12:socket.gaierror: [Errno -3] Temporary failure in name resolution\n",
      "echo npm error code EAI_AGAIN is documented\n",
      "ERROR: No matching distribution found for left-pad\n",
    ];
    expect(outputs.map(quoted)).toEqual(outputs.map(() => undefined));
  });

  it("gives no note for a failed command, nor with the network on", () => {
    const output = "npm error syscall getaddrinfo\n";
    expect(networkRefusedDespiteSuccess(output, 1, false)).toBeUndefined();
    expect(networkRefusedDespiteSuccess(output, 0, true)).toBeUndefined();
  });
});
