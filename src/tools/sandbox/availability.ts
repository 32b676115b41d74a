import { spawn } from "node:child_process";
import type { CommandResult } from "../command-runner.js";
import { writeInputs } from "../process-runner.js";
import { unixSocketFilter } from "./unix-socket-filter.js";

/** The package that provides `bwrap` on Debian and Ubuntu. */
const INSTALL_BUBBLEWRAP = "apt-get install bubblewrap";
/** How long the probe may take before the sandbox is called unavailable, in ms. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Whether sandboxed commands can run here. When not, `reason` says why in one plain sentence and
 * `install` what to run about it; both are meant to be shown once (by `turnloop config`, or when
 * a sandbox is first asked for), never per command.
 */
export type SandboxAvailability =
  | { available: true }
  | { available: false; reason: string; install: string };

/** Where to look for bubblewrap. */
export interface AvailabilityOptions {
  /** The environment the sandboxed commands get; its `PATH` finds `bwrap`. */
  env: Readonly<Record<string, string>>;
  /** The bubblewrap program (default `bwrap`). */
  bwrapPath?: string;
  /**
   * Whether sandboxed commands may make Unix sockets (config `sandbox.allowUnixSockets`); when
   * not (the default), the probe applies the seccomp filter that refuses them, and a processor
   * it does not know makes the sandbox unavailable.
   */
  allowUnixSockets?: boolean;
}

const probes = new Map<string, Promise<SandboxAvailability>>();

/**
 * Probes bubblewrap once per process, program and Unix socket setting: runs `bwrap` with the
 * namespaces every sandboxed command gets (new user namespace and no further ones inside, which
 * needs bubblewrap ≥ 0.8.0) and, unless Unix sockets are allowed, the seccomp filter that refuses
 * them (unix-socket-filter.ts), around `true`. Never rejects: a missing program, user namespaces
 * turned off, an old bubblewrap, a kernel without seccomp or a processor the filter does not know
 * each give `available: false` with the reason.
 */
export function sandboxAvailability(options: AvailabilityOptions): Promise<SandboxAvailability> {
  const file = options.bwrapPath ?? "bwrap";
  const path = options.env.PATH ?? "";
  const allowUnixSockets = options.allowUnixSockets === true;
  const key = `${file}\u0000${path}\u0000${allowUnixSockets}`;
  let probe = probes.get(key);
  if (probe === undefined) {
    const filter = allowUnixSockets ? undefined : unixSocketFilter();
    probe =
      !allowUnixSockets && filter === undefined
        ? Promise.resolve(UNKNOWN_PROCESSOR)
        : probeUntilSettled(file, { PATH: path }, filter === undefined ? [] : [filter]);
    probes.set(key, probe);
  }
  return probe;
}

/** Where the seccomp filter does not know the system calls (unix-socket-filter.ts). */
const UNKNOWN_PROCESSOR: SandboxAvailability = {
  available: false,
  reason: `the sandbox cannot refuse Unix sockets on this processor (${process.arch}; it knows x86_64 and aarch64), and does not run without that.`,
  install:
    "Allow sandboxed commands Unix sockets with sandbox.allowUnixSockets: true in your config file",
};

/**
 * bwrap's words when a mount below `/` went away while it bound `/` recursively (another program
 * unmounting a folder at that moment), or a path its arguments name was removed after they were
 * made (a `.git` folder found in a folder, deleted by another program: "Can't find source path"
 * before bwrap resolved it, "Can't get type of source" after): the machine's state, not
 * bubblewrap's, so the probe runs again (and a command, with its arguments made afresh:
 * {@link failedInMountSetup}).
 */
export const VANISHED_MOUNT =
  /Can't (?:bind mount|remount|find source path|get type of source).*No such file or directory/;
/** How many times the probe runs when mounts vanish under it before the sandbox is called unavailable. */
const PROBE_ATTEMPTS = 3;

async function probeUntilSettled(
  file: string,
  env: Record<string, string>,
  inputs: readonly Uint8Array[],
): Promise<SandboxAvailability> {
  let availability = await runProbe(file, env, inputs);
  for (let attempt = 1; attempt < PROBE_ATTEMPTS; attempt++) {
    if (availability.available || !VANISHED_MOUNT.test(availability.reason)) {
      break;
    }
    availability = await runProbe(file, env, inputs);
  }
  return availability;
}

/** How the probe's `bwrap` ended: its error (as `execFile` words it) and what it printed. */
interface ProbeEnd {
  code?: string;
  killed: boolean;
  message: string;
  stderr: string;
}

function runProbe(
  file: string,
  env: Record<string, string>,
  inputs: readonly Uint8Array[],
): Promise<SandboxAvailability> {
  const args = [
    ...(inputs.length === 0 ? [] : ["--seccomp", "3"]),
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--unshare-net",
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--",
    "true",
  ];
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      env,
      stdio: ["ignore", "ignore", "pipe", ...inputs.map(() => "pipe" as const)],
    });
    // Our own timer, not spawn's `timeout`: Node clears that one only on 'exit', which a bwrap
    // that cannot be spawned (ENOENT) never emits, so the process stayed alive 10 s for nothing.
    const timer = setTimeout(() => child.kill("SIGTERM"), PROBE_TIMEOUT_MS);
    child.once("close", () => clearTimeout(timer));
    child.once("error", () => clearTimeout(timer));
    writeInputs(child.stdio.slice(3), inputs);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const end = (ended: Omit<ProbeEnd, "stderr">) =>
      resolve(unavailable(file, { ...ended, stderr }));
    child.on("error", (error: NodeJS.ErrnoException) =>
      end({
        ...(error.code === undefined ? {} : { code: error.code }),
        killed: false,
        message: error.message,
      }),
    );
    child.on("close", (code, signal) => {
      if (code === 0) {
        resolve({ available: true });
      } else {
        end({ killed: signal !== null, message: `exit ${code ?? signal}` });
      }
    });
  });
}

function unavailable(file: string, error: ProbeEnd): SandboxAvailability {
  const said = error.stderr.trim().split("\n")[0] ?? "";
  if (error.code === "ENOENT") {
    return {
      available: false,
      reason: `bubblewrap (${file}) is not installed, so commands cannot run in a sandbox.`,
      install: `Install it: ${INSTALL_BUBBLEWRAP}`,
    };
  }
  if (said.includes("--disable-userns")) {
    return {
      available: false,
      reason: `this bubblewrap (${file}) is older than 0.8.0, which the sandbox needs.`,
      install: `Install a newer one: ${INSTALL_BUBBLEWRAP} (Debian 12, Ubuntu 24.04 or later)`,
    };
  }
  if (/namespace|uid map|Operation not permitted|Permission denied/i.test(said)) {
    return {
      available: false,
      reason: `bubblewrap cannot create a user namespace here (${said}): user namespaces are off.`,
      install:
        "Turn them on: sysctl kernel.unprivileged_userns_clone=1 (Debian), or allow bwrap in " +
        "AppArmor (Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=0); in a container, " +
        "run it with user namespaces allowed",
    };
  }
  const detail = said === "" ? (error.killed ? "timed out" : error.message) : said;
  return {
    available: false,
    reason: `bubblewrap (${file}) does not run here: ${detail}.`,
    install: `Check that ${INSTALL_BUBBLEWRAP} works: bwrap --ro-bind / / true`,
  };
}

/** One plain line for `turnloop config` and the first sandboxed command, e.g. `sandbox: bubblewrap`. */
export function describeSandboxAvailability(availability: SandboxAvailability): string {
  return availability.available
    ? "sandbox: bubblewrap"
    : `sandbox unavailable: ${availability.reason} ${availability.install}.`;
}

/**
 * Whether bwrap failed before the command started (`status`, what it wrote on `--json-status-fd`,
 * holds no `exit-code` object, which bwrap(1) writes only once the command ran) on a mount that
 * went away while it bound `/` recursively ({@link VANISHED_MOUNT}): the machine's
 * moment, so the command is run again (sandboxed-runner.ts). A command that ran is never run
 * again, whatever it printed.
 */
export function failedInMountSetup(result: CommandResult, status: string): boolean {
  return (
    result.exitCode !== null &&
    result.exitCode !== 0 &&
    !commandRan(status) &&
    VANISHED_MOUNT.test(result.output)
  );
}

/** Whether bwrap's JSON-lines status (bwrap(1) `--json-status-fd`) holds an `exit-code` object. */
function commandRan(status: string): boolean {
  return status.split("\n").some((line) => {
    try {
      const object: unknown = JSON.parse(line);
      return typeof object === "object" && object !== null && "exit-code" in object;
    } catch {
      return false;
    }
  });
}
