import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createSocket, type Socket as DatagramSocket } from "node:dgram";
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createServer as createSocketServer, type Server as SocketServer } from "node:net";
import { arch, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWrap } from "../../../src/tools/sandbox/index.js";
import { requireSandbox, runCommandLine } from "../../support/sandbox.js";
import { processAttempts } from "./escape-process.js";
import {
  type EscapeAttempt,
  type EscapeTargets,
  readAttempts,
  writeAttempts,
} from "./escape-table.js";
import { createSandboxFixture, type SandboxFixture } from "./fixture.js";

const sandboxReady = await requireSandbox();

/** A DNS query (RFC 1035 §4.1) for `turnloop.test`, type A, class IN. */
const DNS_QUERY = Buffer.concat([
  Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
  Buffer.from("\u0008turnloop\u0004test\u0000", "latin1"),
  Buffer.from([0x00, 0x01, 0x00, 0x01]),
]);

const PTRACE_SYSCALLS: Record<string, number> = { x64: 101, arm64: 117 };

describe.skipIf(!sandboxReady)("workspace-write: the escape table", () => {
  let fixture: SandboxFixture;
  let targets: EscapeTargets;
  let copies: Record<string, string>;
  const servers: (Server | SocketServer)[] = [];
  let resolver: DatagramSocket;
  const fifos = new Map<string, number>();
  let hostTemporary: string;

  beforeAll(async () => {
    fixture = await createSandboxFixture();
    hostTemporary = mkdtempSync(join(tmpdir(), "turnloop-agent-"));
    copies = await copyCredentialsInside(fixture);
    const greet = (socket: { end(text: string): void }) => socket.end(`${fixture.secret}\n`);
    const http = createServer((_request, response) => response.end(fixture.secret));
    const listen = (server: Server | SocketServer, where: string | number) =>
      new Promise<void>((resolve) => {
        servers.push(server);
        if (typeof where === "number") {
          server.listen(where, "127.0.0.1", resolve);
        } else {
          server.listen(where, resolve);
        }
      });
    await listen(http, 0);
    const sockets = {
      turnloopHome: join(fixture.turnloopHome, "agent.sock"),
      temporary: join(hostTemporary, "agent.sock"),
      abstract: `\u0000turnloop-agent-${randomUUID()}`,
      workspace: join(fixture.workspace, "src", "workspace.sock"),
      hostService: join(fixture.outside, "host-service.sock"),
    };
    for (const path of Object.values(sockets)) {
      await listen(createSocketServer(greet), path);
    }
    resolver = createSocket("udp4");
    resolver.on("message", (query, peer) => {
      const answer = Buffer.concat([
        query.subarray(0, 2),
        Buffer.from([0x81, 0x80]),
        query.subarray(4),
      ]);
      resolver.send(answer, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => resolver.bind(0, "127.0.0.1", resolve));
    const fifo = (path: string) => {
      execFileSync("mkfifo", [path]);
      fifos.set(path, openSync(path, constants.O_RDWR | constants.O_NONBLOCK));
      return path;
    };
    targets = {
      httpPort: portOf(http),
      dnsQueryHex: DNS_QUERY.toString("hex"),
      dnsPort: resolver.address().port,
      agentSocketInTurnloopHome: sockets.turnloopHome,
      agentSocketInTemporary: sockets.temporary,
      agentAbstractSocket: `@${sockets.abstract.slice(1)}`,
      workspaceSocket: sockets.workspace,
      hostServiceSocket: sockets.hostService,
      fifoInTurnloopHome: fifo(join(fixture.turnloopHome, "agent.fifo")),
      fifoInTemporary: fifo(join(hostTemporary, "agent.fifo")),
      workspaceFifo: fifo(join(fixture.workspace, "src", "workspace.fifo")),
      received: (path) => drain(fifos.get(path)),
      ptraceSyscall: PTRACE_SYSCALLS[arch()] ?? Number.NaN,
    };
  });

  afterAll(async () => {
    for (const server of servers) {
      server.close();
    }
    resolver?.close();
    for (const descriptor of fifos.values()) {
      closeSync(descriptor);
    }
    rmSync(hostTemporary, { recursive: true, force: true });
    await fixture?.remove();
  });

  it("stops every attempt, while the same command aimed inside the workspace works", async () => {
    expect(Number.isNaN(targets.ptraceSyscall), `ptrace's number on ${arch()}`).toBe(false);
    const agentPid = fixture.agent.pid;
    const attempts: EscapeAttempt[] = [
      ...writeAttempts(fixture, agentPid),
      ...readAttempts(fixture, copies),
      ...processAttempts(fixture, targets, agentPid),
    ];
    expect(attempts.length).toBeGreaterThanOrEqual(30);
    const outcomes = [];
    for (const row of attempts) {
      const unixSockets = row.withUnixSockets === true;
      const attempt = await runSandboxed(fixture, row.attempt, {
        network: false,
        unixSockets,
        env: row.env,
      });
      const control = await runSandboxed(fixture, row.control, {
        network: row.controlWithNetwork === true,
        unixSockets: unixSockets || row.controlWithUnixSockets === true,
        env: row.env,
      });
      outcomes.push({
        name: row.name,
        escaped: row.escaped(attempt) ? attempt.output : false,
        controlWorked: row.worked(control) ? true : control.output,
      });
    }
    expect(outcomes).toEqual(
      attempts.map((row) => ({ name: row.name, escaped: false, controlWorked: true })),
    );
  }, 180_000);
});

/** Runs `command` under `workspace-write` as a runner would, with the fixture's environment. */
function runSandboxed(
  fixture: SandboxFixture,
  command: string,
  options: { network: boolean; unixSockets: boolean; env: Record<string, string> | undefined },
) {
  const wrap = sandboxWrap("workspace-write", {
    cwd: fixture.workspace,
    home: fixture.home,
    turnloopHome: fixture.turnloopHome,
    network: options.network,
    allowUnixSockets: options.unixSockets,
  });
  return runCommandLine(wrap(command), {
    cwd: fixture.workspace,
    env: { ...fixture.env, ...options.env },
  });
}

/** Copies of the fake credential files inside the workspace, for the reads' controls. */
async function copyCredentialsInside(fixture: SandboxFixture): Promise<Record<string, string>> {
  const paths = [
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".npmrc",
    ".git-credentials",
    ".kube/config",
    ".docker/config.json",
    ".config/gcloud/credentials.db",
    ".gnupg/private-keys-v1.d/key.key",
  ];
  const copies: Record<string, string> = {};
  await mkdir(join(fixture.workspace, "src", "copies"), { recursive: true });
  for (const [index, path] of paths.entries()) {
    const copy = join(fixture.workspace, "src", "copies", `copy-${index}`);
    await copyFile(join(fixture.home, path), copy);
    copies[path] = copy;
  }
  return copies;
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("the HTTP server has no port");
  }
  return address.port;
}

/** What is waiting in a FIFO the host holds open (nothing when no writer reached it). */
function drain(descriptor: number | undefined): string {
  if (descriptor === undefined) {
    return "";
  }
  const buffer = Buffer.alloc(4096);
  try {
    const length = readSync(descriptor, buffer, 0, buffer.length, null);
    return buffer.subarray(0, length).toString("utf8");
  } catch {
    return "";
  }
}
