import type { PermissionMode } from "../permissions/permission-mode.js";
import { DEFAULT_TMPFS_SIZE_MIB, type SandboxPolicy } from "../tools/sandbox/policy.js";
import type { ConfigFile, LoadedConfig } from "./config.js";
import { type ProjectTrust, untrustedPhrase } from "./config-paths.js";
import { DEFAULT_MAX_AUTOPILOT_CONTINUES, DEFAULT_MAX_TURNS } from "./run-config.js";

/**
 * What an untrusted project's `.turnloop/config.json` may not do (README, "Trusted projects"): a
 * cloned repository must not loosen what runs without a question, send the user's code, keys or
 * sessions elsewhere, nor raise what a run spends before the user trusted it (`turnloop mcp
 * trust`, or the trust question), as Codex ignores an untrusted project's config. Held keys:
 * `permissions.allow`, `permissions.mode` looser than the user's file's (else `ask`), `baseUrl`,
 * `providers`, `store`, every `sandbox` key whose value is wider than the user's file's or, unset
 * there, its default (`policy` past `workspace-write`, the policy of mode `auto`; `network:
 * true`; `allowUnixSockets: true`; `tmpfsSizeMiB` past 1024: keptSandbox), `shellEnvironment.keep`
 * (it gives commands variables that look secret), `mcpServers` (started by mcp-servers.ts only
 * once trusted), and what picks the model or what a run spends (keptSpending): `model` other than
 * the user's file's, `maxTurns` and `autopilot.maxContinues` above the user's file's or the
 * default, `contextWindows` entries unlike the user's file's. Every other key applies
 * (`permissions.deny`, `sandbox.hidden`, a lower `maxTurns`, …): each only tightens.
 */

/** A project file's held keys, each with its value as written. */
export interface HeldSettings {
  /** The project's config file. */
  readonly path: string;
  /** Dotted key (`permissions.mode`) → the value the file gives it. */
  readonly keys: Readonly<Record<string, unknown>>;
}

const MODE_RANK: Record<PermissionMode, number> = { ask: 0, auto: 1, "full-access": 2 };
const POLICY_RANK: Record<SandboxPolicy, number> = {
  "read-only": 0,
  "workspace-write": 1,
  "danger-full-access": 2,
};

/**
 * `loaded` with the held keys of its project file taken out, and those keys; `held` is absent
 * when the file holds nothing (or there is no project file). Call it only for an untrusted
 * project. Never throws.
 */
export function holdUntrustedSettings(loaded: LoadedConfig): {
  loaded: LoadedConfig;
  held?: HeldSettings;
} {
  const user = loaded.files.find((file) => file.scope === "user")?.settings ?? {};
  const project = loaded.files.find((file) => file.scope === "project");
  if (project === undefined) {
    return { loaded };
  }
  const { kept, keys } = splitProjectSettings(project.settings, user);
  if (Object.keys(keys).length === 0) {
    return { loaded };
  }
  const files = loaded.files.map((file) => (file === project ? { ...file, settings: kept } : file));
  return { loaded: { ...loaded, files }, held: { path: project.path, keys } };
}

/**
 * The warning line's text for `held`, held because of `trust` (the caller adds `turnloop:
 * warning: `); `undefined` when
 * only `mcpServers` is held, which the MCP servers' own warning names with the servers
 * (mcp-servers.ts), so that a run says it once.
 */
export function heldSettingsWarning(held: HeldSettings, trust: ProjectTrust): string | undefined {
  const keys = Object.keys(held.keys).filter((key) => key !== "mcpServers");
  if (keys.length === 0) {
    return undefined;
  }
  return (
    `${held.path}: not applying ${keys.join(", ")}: ${untrustedPhrase(trust)}, ` +
    `and ${keys.length === 1 ? "this key" : "these keys"} ${whatHeldKeysDo(keys.length)}; ` +
    "run `turnloop mcp trust` in it to trust the whole project config"
  );
}

/**
 * What held keys do, said once for every face: after "this key" or a project file (`count` 1,
 * `… loosens permissions, sends data elsewhere or changes what a run may spend`), or after "these
 * keys" (`count` above 1, `… loosen …, send … or change …`): in the warning about held keys
 * ({@link heldSettingsWarning}) and in the trust question (cli/project-trust-question.ts).
 */
export function whatHeldKeysDo(count: number): string {
  return count === 1
    ? "loosens permissions, sends data elsewhere or changes what a run may spend"
    : "loosen permissions, send data elsewhere or change what a run may spend";
}

function splitProjectSettings(
  settings: ConfigFile,
  user: ConfigFile,
): { kept: ConfigFile; keys: Record<string, unknown> } {
  const keys: Record<string, unknown> = {};
  const { baseUrl, providers, store, mcpServers, permissions, sandbox, shellEnvironment, ...rest } =
    settings;
  const { model, maxTurns, autopilot, contextWindows, ...kept } = rest;
  const hold = (key: string, value: unknown) => {
    if (value !== undefined) {
      keys[key] = value;
    }
  };
  hold("baseUrl", baseUrl);
  hold("providers", providers);
  hold("store", store);
  hold("shellEnvironment.keep", shellEnvironment?.keep);
  hold("mcpServers", mcpServers);
  const { allow, mode, ...permissionsKept } = permissions ?? {};
  hold("permissions.allow", allow);
  const modeHeld =
    mode !== undefined && MODE_RANK[mode] > MODE_RANK[user.permissions?.mode ?? "ask"];
  hold("permissions.mode", modeHeld ? mode : undefined);
  const sandboxKept = sandbox === undefined ? undefined : keptSandbox(sandbox, user.sandbox, hold);
  return {
    kept: {
      ...kept,
      ...keptSpending({ model, maxTurns, autopilot, contextWindows }, user, hold),
      ...(permissions === undefined
        ? {}
        : {
            permissions: {
              ...permissionsKept,
              ...(modeHeld || mode === undefined ? {} : { mode }),
            },
          }),
      ...(sandboxKept === undefined ? {} : { sandbox: sandboxKept }),
    },
    keys,
  };
}

type SpendingSettings = Pick<ConfigFile, "model" | "maxTurns" | "autopilot" | "contextWindows">;

/**
 * `project`'s settings that pick the model or bound what a run spends, without those that would
 * change the user's (`user`, the user's file), which go to `hold`: a `model` other than the
 * user's file's (it chooses which provider reads the code, and at what price; the profile's
 * endpoint and key are held with `providers`); a `maxTurns` or `autopilot.maxContinues` above the
 * user's file's or, unset there, the default (100 model requests a prompt, 5 continues: run-config.ts);
 * each `contextWindows` entry unlike the user's file's for that model id (too large, and
 * compaction never runs: each request carries the whole history until the provider refuses it;
 * too small, and a compaction request follows nearly every turn). A lower limit, or the user's
 * own value, applies.
 */
function keptSpending(
  project: SpendingSettings,
  user: ConfigFile,
  hold: (key: string, value: unknown) => void,
): SpendingSettings {
  const { model, maxTurns, autopilot, contextWindows } = project;
  const kept: SpendingSettings = {};
  if (model !== undefined && model === user.model) {
    kept.model = model;
  } else {
    hold("model", model);
  }
  if (maxTurns !== undefined && maxTurns <= (user.maxTurns ?? DEFAULT_MAX_TURNS)) {
    kept.maxTurns = maxTurns;
  } else {
    hold("maxTurns", maxTurns);
  }
  const continues = autopilot?.maxContinues;
  const userContinues = user.autopilot?.maxContinues ?? DEFAULT_MAX_AUTOPILOT_CONTINUES;
  if (continues !== undefined && continues <= userContinues) {
    kept.autopilot = { maxContinues: continues };
  } else {
    hold("autopilot.maxContinues", continues);
  }
  const entries = Object.entries(contextWindows ?? {});
  const same = entries.filter(([id, size]) => user.contextWindows?.[id] === size);
  if (same.length > 0) {
    kept.contextWindows = Object.fromEntries(same);
  }
  if (same.length < entries.length) {
    hold("contextWindows", Object.fromEntries(entries.filter((entry) => !same.includes(entry))));
  }
  return kept;
}

type SandboxSettingsFile = NonNullable<ConfigFile["sandbox"]>;

/**
 * How wide each sandbox key's value lets a command go, wider higher, a value not set counted as
 * its default: the policy (`workspace-write`, the policy of mode `auto`), the network and Unix
 * sockets (off), the size of `/tmp` and `/dev/shm` (memory a command may take; policy.ts
 * `DEFAULT_TMPFS_SIZE_MIB`). `sandbox.hidden` is not here: a file's list adds to the others'
 * (run-config.ts), so it only hides more. A new sandbox key must be ranked here to compile.
 */
const SANDBOX_WIDTH: {
  [Key in Exclude<keyof SandboxSettingsFile, "hidden">]-?: (
    value: SandboxSettingsFile[Key],
  ) => number;
} = {
  policy: (policy) => POLICY_RANK[policy ?? "workspace-write"],
  network: (network) => (network === true ? 1 : 0),
  allowUnixSockets: (allowed) => (allowed === true ? 1 : 0),
  tmpfsSizeMiB: (size) => size ?? DEFAULT_TMPFS_SIZE_MIB,
};

/**
 * `sandbox` (a project's) without what would loosen the user's own sandbox settings
 * (`userSandbox`), by one rule: a key whose value is wider ({@link SANDBOX_WIDTH}) than the
 * user's, or than its default when the user's file does not set it (a wider policy, the
 * network, Unix sockets, a bigger `/tmp`), goes to `hold`; a narrower or equal one applies.
 */
function keptSandbox(
  sandbox: SandboxSettingsFile,
  userSandbox: ConfigFile["sandbox"],
  hold: (key: string, value: unknown) => void,
): SandboxSettingsFile {
  const kept: Record<string, unknown> = { ...sandbox };
  for (const [key, width] of Object.entries(SANDBOX_WIDTH) as Array<
    [keyof typeof SANDBOX_WIDTH, (value: unknown) => number]
  >) {
    const value = sandbox[key];
    if (value !== undefined && width(value) > width(userSandbox?.[key])) {
      hold(`sandbox.${key}`, value);
      delete kept[key];
    }
  }
  return kept as SandboxSettingsFile;
}
