import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxedRunner } from "../../../src/tools/sandbox/index.js";
import { requireSandbox } from "../../support/sandbox.js";

// The trial's finding: "the network is off", yet a host service on a Unix socket answered a
// command in the sandbox (`curl --unix-socket …`): a read-only mount does not stop `connect()`.
// A host service listens on a socket file outside the sandbox (under /var/tmp: the sandbox's /tmp
// is its own); commands run through real bubblewrap, and what they hit is what the model is told.

const sandboxReady = await requireSandbox();

const REFUSED =
  "the sandbox refuses Unix sockets, so services on the host such as databases, D-Bus and Docker are out of reach";

/** Listens on `path` (a socket file, or an abstract name starting with NUL) and records requests. */
async function hostService(path: string, requests: string[]): Promise<Server> {
  const server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.end("host-service-reached\n");
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

describe.skipIf(!sandboxReady)("Unix sockets in the sandbox", () => {
  let base = "";
  let workspace = "";
  let socket = "";
  const abstractName = `\0turnloop-sandbox-test-${process.pid}`;
  const requests: string[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    base = await mkdtemp("/var/tmp/turnloop-sandbox-sockets-");
    workspace = join(base, "workspace");
    await mkdir(workspace);
    execFileSync("git", ["init", "-q", workspace]);
    execFileSync("git", ["-C", workspace, "commit", "-q", "--allow-empty", "-m", "first"], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
    socket = join(base, "host.sock");
    servers.push(await hostService(socket, requests), await hostService(abstractName, requests));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await rm(base, { recursive: true, force: true });
  });

  const run = (command: string, allowUnixSockets = false) =>
    new SandboxedRunner("workspace-write", {
      home: base,
      turnloopHome: join(base, "turnloop-home"),
      allowUnixSockets,
    }).run(command, {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      savePath: join(base, "output.txt"),
      secrets: [],
    });

  it("a host service's socket file is refused, and the model is told why", async () => {
    const curl = await run(`curl -sS --max-time 5 --unix-socket ${socket} http://x/from-curl`);
    const python = await run(
      `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${socket}")' 2>&1 | tail -n 1; exit "\${PIPESTATUS[0]}"`,
    );
    const node = await run(
      `node -e 'require("node:net").connect("${socket}").on("error", (e) => { console.log(e.message); process.exit(1) })'`,
    );
    expect(
      [curl, python, node].map(({ output, exitCode, sandboxLimit }) => ({
        output: output.replace(/after \d+ ms/, "after N ms"),
        exitCode,
        sandboxLimit,
      })),
    ).toEqual([
      {
        output: "curl: (7) Failed to connect to x port 80 after N ms: Couldn't connect to server\n",
        exitCode: 7,
        sandboxLimit: `${REFUSED} (Failed to connect to x port 80)`,
      },
      {
        output: "PermissionError: [Errno 1] Operation not permitted\n",
        exitCode: 1,
        sandboxLimit: `${REFUSED} (Operation not permitted)`,
      },
      {
        output: `connect EPERM ${socket}\n`,
        exitCode: 1,
        sandboxLimit: `${REFUSED} (EPERM)`,
      },
    ]);
    expect(requests).toEqual([]);
  });

  it("TCP on the sandbox's own loopback, socket pairs and ordinary commands still work", async () => {
    const loopback = `node -e 'const net = require("node:net"); const server = net.createServer((c) => c.end("tcp-ok")).listen(0, "127.0.0.1", () => net.connect(server.address().port, "127.0.0.1").on("data", (d) => { console.log(String(d)); process.exit(0) }))'`;
    const pair = `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"pair-ok"); print(b.recv(9).decode())'`;
    const child = `node -e 'require("node:child_process").exec("echo child-ok", (e, out) => process.stdout.write(out))'`;
    const result = await run(
      [loopback, pair, child, "ls", "git status --porcelain && git log --format=%s"].join(" && "),
    );
    expect({
      output: result.output,
      exitCode: result.exitCode,
      limit: result.sandboxLimit,
    }).toEqual({
      output: "tcp-ok\npair-ok\nchild-ok\nfirst\n",
      exitCode: 0,
      limit: undefined,
    });
  });

  it("with sandbox.allowUnixSockets the socket file answers; an abstract socket stays out of reach (the network namespace)", async () => {
    const allowed = await run(
      `curl -sS --max-time 5 --unix-socket ${socket} http://x/allowed`,
      true,
    );
    const abstract = await run(
      `curl -sS --max-time 5 --abstract-unix-socket ${abstractName.slice(1)} http://x/abstract`,
      true,
    );
    expect([allowed.output, allowed.exitCode, abstract.exitCode]).toEqual([
      "host-service-reached\n",
      0,
      7,
    ]);
    expect(requests).toEqual(["/allowed"]);
  });
});
