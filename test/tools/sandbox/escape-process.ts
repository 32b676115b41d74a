import { readFileSync } from "node:fs";
import { processesWith, type RunOutcome } from "../../support/sandbox.js";
import { type EscapeAttempt, type EscapeTargets, MARK, quote } from "./escape-table.js";
import type { SandboxFixture } from "./fixture.js";

/** Runs what follows only in a pid namespace; prints `no pid namespace` otherwise. */
const ONLY_IN_PID_NAMESPACE = '[ "$$" -lt 10 ] || { echo "no pid namespace"; exit 1; };';

/** Whether a host process has ended (gone, or a zombie waiting to be reaped). */
function ended(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** Attempts on the fake agent's process, the environment, the network, IPC and lifetime. */
export function processAttempts(
  f: SandboxFixture,
  t: EscapeTargets,
  agentPid: number,
): EscapeAttempt[] {
  const tcp = `exec 3<>/dev/tcp/127.0.0.1/${t.httpPort} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
  const dns =
    `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:${t.dnsPort}", ` +
    `Proto => "udp") or die "socket: $!"; $s->send(pack("H*", "${t.dnsQueryHex}")) or die "send: $!"; ` +
    `alarm 10; defined $s->recv($answer, 512) or die "recv: $!"; print $answer'`;
  const unix = (path: string) =>
    `perl -MIO::Socket::UNIX -e '($p = $ARGV[0]) =~ s/^@/\\0/; $s = IO::Socket::UNIX->new(Peer => $p) or die "connect: $!"; print scalar <$s>' ${quote(path)}`;
  const fifo = (path: string) => `timeout 10 sh -c ${quote(`echo ${MARK} > ${path}`)}`;
  // PTRACE_ATTACH (16) on the process given, or with no argument on a child of its own (allowed
  // under Yama's ptrace_scope 1, which limits tracing to descendants).
  const ptrace = (pid: string) =>
    `perl -e 'my $pid = $ARGV[0] // fork() // die "fork: $!"; if ($pid == 0) { sleep 60; exit } ` +
    `my $r = syscall(${t.ptraceSyscall}, 16, $pid + 0, 0, 0); print $r == 0 ? "ATTACHED\\n" : "refused: $!\\n"; ` +
    `kill 9, $pid unless @ARGV' ${pid}`;
  const survivor = (token: string, start: string) => ({
    name: `a background process outliving the sandbox (${start})`,
    attempt: `${start} bash -c ${quote(`exec -a ${token} sleep 600`)} > /dev/null 2>&1 &`,
    control: `${start} bash -c ${quote(`exec -a ${token}-control sleep 600`)} > /dev/null 2>&1 & kill -0 $! && echo ALIVE`,
    escaped: () => processesWith(token).length > 0,
    worked: (outcome: RunOutcome) => outcome.output.includes("ALIVE"),
  });
  const greets = (outcome: RunOutcome) => outcome.output.includes(f.secret);
  return [
    {
      name: "a provider key in the environment",
      attempt: 'echo "$OPENAI_API_KEY $ANTHROPIC_API_KEY $TURNLOOP_API_KEY"',
      control: 'echo "$TURNLOOP_TEST_VISIBLE"',
      env: { OPENAI_API_KEY: f.secret, ANTHROPIC_API_KEY: f.secret, TURNLOOP_API_KEY: f.secret },
      escaped: greets,
      worked: (outcome) => outcome.output.includes("visible-variable"),
    },
    {
      name: "a provider key in /proc/<agent pid>/environ",
      attempt: `cat /proc/${agentPid}/environ`,
      control: "cat /proc/self/environ",
      escaped: greets,
      worked: (outcome) => outcome.output.includes("visible-variable"),
    },
    {
      name: "kill the agent",
      attempt: `kill -KILL ${agentPid}`,
      control: "sleep 60 & kill -KILL $! && wait $!; echo killed $?",
      escaped: () => ended(agentPid),
      worked: (outcome) => outcome.output.includes("killed 137"),
    },
    {
      name: "kill every process (kill -9 -1)",
      // Only in a pid namespace (bash is pid 2 there): without one, kill -1 would reach every
      // process of this user on the machine, so the row reports the missing namespace instead.
      attempt: `${ONLY_IN_PID_NAMESPACE} kill -KILL -1`,
      control: `sleep 60 & ${ONLY_IN_PID_NAMESPACE} kill -KILL -1; wait $!; echo "sleep ended: $?"`,
      escaped: (outcome) => ended(agentPid) || outcome.output.includes("no pid namespace"),
      worked: (outcome) => outcome.output.includes("sleep ended: 137"),
    },
    {
      name: "ptrace the agent",
      attempt: ptrace(String(agentPid)),
      control: ptrace(""),
      escaped: (outcome) => outcome.output.includes("ATTACHED"),
      worked: (outcome) => outcome.output.includes("ATTACHED"),
    },
    {
      name: "setuid su to regain capabilities",
      attempt: "su root -s /bin/sh -c 'grep CapEff /proc/self/status'",
      control: "sh -c 'grep CapEff /proc/self/status'",
      escaped: (outcome) => /CapEff:\s*0*[1-9a-f]/.test(outcome.output),
      worked: (outcome) => outcome.output.includes("CapEff:"),
    },
    {
      name: "network: a server on 127.0.0.1",
      attempt: tcp,
      control: tcp,
      controlWithNetwork: true,
      escaped: greets,
      worked: greets,
    },
    {
      name: "network: DNS query to a resolver",
      attempt: dns,
      control: dns,
      controlWithNetwork: true,
      escaped: (outcome) => outcome.output.includes("turnloop"),
      worked: (outcome) => outcome.output.includes("turnloop"),
    },
    {
      name: "unix socket of a host service outside the workspace (the seccomp filter)",
      attempt: unix(t.hostServiceSocket),
      control: unix(t.workspaceSocket),
      controlWithUnixSockets: true,
      escaped: greets,
      worked: greets,
    },
    {
      name: "abstract unix socket of the agent, Unix sockets allowed",
      attempt: unix(t.agentAbstractSocket),
      control: unix(t.workspaceSocket),
      withUnixSockets: true,
      escaped: greets,
      worked: greets,
    },
    {
      name: "unix socket of the agent in TURNLOOP_HOME, Unix sockets allowed",
      attempt: unix(t.agentSocketInTurnloopHome),
      control: unix(t.workspaceSocket),
      withUnixSockets: true,
      escaped: greets,
      worked: greets,
    },
    {
      name: "unix socket of the agent in /tmp, Unix sockets allowed",
      attempt: unix(t.agentSocketInTemporary),
      control: unix(t.workspaceSocket),
      withUnixSockets: true,
      escaped: greets,
      worked: greets,
    },
    {
      name: "fifo of the agent in TURNLOOP_HOME",
      attempt: fifo(t.fifoInTurnloopHome),
      control: fifo(t.workspaceFifo),
      escaped: () => t.received(t.fifoInTurnloopHome).includes(MARK),
      worked: () => t.received(t.workspaceFifo).includes(MARK),
    },
    {
      name: "fifo of the agent in /tmp",
      attempt: fifo(t.fifoInTemporary),
      control: fifo(t.workspaceFifo),
      escaped: () => t.received(t.fifoInTemporary).includes(MARK),
      worked: () => t.received(t.workspaceFifo).includes(MARK),
    },
    survivor(`turnloop-survivor-${f.secret.slice(7, 15)}`, ""),
    survivor(`turnloop-daemon-${f.secret.slice(7, 15)}`, "setsid nohup"),
  ];
}
