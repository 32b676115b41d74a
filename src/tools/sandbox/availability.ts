import { type ExecFileException, execFile } from "node:child_process";

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
}

const probes = new Map<string, Promise<SandboxAvailability>>();

/**
 * Probes bubblewrap once per process and program: runs `bwrap` with the namespaces every
 * sandboxed command gets (new user namespace and no further ones inside, which needs
 * bubblewrap ≥ 0.8.0) around `true`. Never rejects: a missing program, user namespaces turned
 * off or an old bubblewrap each give `available: false` with the reason.
 */
export function sandboxAvailability(options: AvailabilityOptions): Promise<SandboxAvailability> {
  const file = options.bwrapPath ?? "bwrap";
  const path = options.env.PATH ?? "";
  const key = `${file}\u0000${path}`;
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = runProbe(file, { PATH: path });
    probes.set(key, probe);
  }
  return probe;
}

function runProbe(file: string, env: Record<string, string>): Promise<SandboxAvailability> {
  const args = [
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
    execFile(file, args, { env, timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      resolve(error === null ? { available: true } : unavailable(file, error, stderr));
    });
  });
}

function unavailable(file: string, error: ExecFileException, stderr: string): SandboxAvailability {
  const said = stderr.trim().split("\n")[0] ?? "";
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
  const detail = said === "" ? (error.killed === true ? "timed out" : error.message) : said;
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
