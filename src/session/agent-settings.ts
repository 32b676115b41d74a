import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve, sep } from "node:path";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { errorMessage } from "../events/errors.js";
import type { SecretValue } from "../events/secrets.js";
import type { ModelSettingNames } from "../llm/models.js";
import type { Provider } from "../llm/provider.js";
import { type AskPermission, parseRules } from "../permissions/permission-decision.js";
import {
  type Authorize,
  createPermissionGate,
  createSandboxExitAsker,
  type PermissionGateOptions,
} from "../permissions/permission-gate.js";
import {
  anchoredRule,
  type PermissionMode,
  type RuleSource,
} from "../permissions/permission-mode.js";
import type { PermissionRule } from "../permissions/permission-rules.js";
import type { CommandRunner, CommandSetup } from "../tools/command-runner.js";
import type { AnyTool, ClientCapabilities } from "../tools/define-tool.js";
import { builtinTools } from "../tools/index.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import type { ServerConfigView } from "../tools/sandbox/server-programs.js";
import { loadInstructions, recordInstructions } from "./instructions.js";
import type { RunConfig, SourcedRule } from "./run-config.js";
import type { HostSandbox } from "./sandbox-setup.js";
import type { Session, SessionAgentSettings } from "./session.js";

/**
 * The one place where a prompt's agent settings (what the loop needs) are derived from the run
 * config. A face hands in only the session's choices and its callbacks ({@link FaceCallbacks});
 * it never assembles permission rules, folders or limits itself.
 */

/** The run config with what the host reads from it once: parsed rules, the system prompt file. */
export interface PreparedRun {
  config: RunConfig;
  /** `config.allow` / `config.deny`, parsed, their path patterns absolute ({@link anchoredRules}). */
  allow: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  /** `--system-prompt-file`'s absolute path and text. */
  systemPrompt?: { path: string; text: string };
  /** Where the user's instruction files are (`$TURNLOOP_HOME`); absent with `--no-instructions`. */
  instructionsHome?: string;
  /** `$TURNLOOP_HOME` (the host's): the user's config files are there. */
  turnloopHome: string;
  /** How commands run unless a face brings its own runner or a sandbox confines them, and in which environment. */
  commands: CommandSetup;
  /** The sandbox of the sessions' commands (policy, availability, runners). */
  sandbox: HostSandbox;
  /** The host environment's secrets, redacted in files tools save. */
  secrets: readonly SecretValue[];
  /** The model's context window in tokens: `--context-window`, else `TURNLOOP_CONTEXT_WINDOW`. */
  contextWindow?: number;
}

/** What the session host knows of its process and hands to every session's settings. */
export type HostFacts = Pick<PreparedRun, "commands" | "sandbox" | "secrets" | "contextWindow">;

/**
 * Reads what the run config names once: parses the allow and deny rules and reads
 * `--system-prompt-file` (relative to the config's cwd).
 * @throws Error naming a malformed rule or the system prompt file that cannot be read.
 */
export function prepareRun(config: RunConfig, home: string, host: HostFacts): PreparedRun {
  const run: PreparedRun = {
    ...host,
    config,
    turnloopHome: home,
    allow: parsedRules(config.allow, config.cwd.value),
    deny: parsedRules(config.deny, config.cwd.value),
    ...(config.instructions.value ? { instructionsHome: home } : {}),
  };
  if (config.systemPromptFile === undefined) {
    return run;
  }
  const path = resolve(config.cwd.value, config.systemPromptFile.value);
  try {
    return { ...run, systemPrompt: { path, text: readFileSync(path, "utf8") } };
  } catch (error) {
    throw new Error(`cannot read --system-prompt-file ${path}: ${errorMessage(error)}`);
  }
}

/**
 * `rules` parsed, each path pattern absolute ({@link anchoredRules}): a relative one read against
 * its `anchor` (run-config.ts `SourcedRule`), else against `cwd`.
 * @throws Error naming a malformed rule.
 */
function parsedRules(rules: readonly SourcedRule[], cwd: string): PermissionRule[] {
  const parsed = parseRules(rules.map((rule) => rule.value));
  const homes = folderSpellings(homedir());
  return parsed.flatMap((rule, index) => {
    const written = rules[index];
    const sourced = written === undefined ? rule : { ...rule, source: ruleSource(written.source) };
    return anchoredRules([sourced], folderSpellings(written?.anchor ?? cwd), homes);
  });
}

/** A run config rule's source (run-config.ts: a flag, else a file's path, shown under `~`). */
function ruleSource(source: string): RuleSource {
  if (source.startsWith("--")) {
    return { kind: "flag", flag: source };
  }
  const home = homedir();
  const inHome = source.startsWith(`${home}${sep}`);
  return { kind: "file", path: inHome ? `~${source.slice(home.length)}` : source };
}

/**
 * `rules` with each path pattern made absolute (permission-mode.ts `anchoredRule`: relative ones
 * under the folder, `~` under the home folder), so the gate reads no pattern against a folder of
 * its own. The gate judges real paths while a tool's listing names them under the folder as
 * given, so a rule is kept in each spelling of the folder (`folders`) and of the home folder
 * (`homes`), from {@link folderSpellings}; its text stays as written.
 */
function anchoredRules(
  rules: readonly PermissionRule[],
  folders: readonly string[],
  homes: readonly string[],
): PermissionRule[] {
  return rules.flatMap((rule) => {
    const spelt = folders.flatMap((folder) =>
      homes.map((home) => anchoredRule(rule, folder, home)),
    );
    return spelt.filter(
      (each, index) => spelt.findIndex((other) => other.pattern === each.pattern) === index,
    );
  });
}

/** The spellings of each session's folder and of the home folder, read once per session. */
const spellingsOfSessions = new WeakMap<Session, { cwds: string[]; homes: string[] }>();

/**
 * {@link folderSpellings} of `session`'s folder and of the home folder, read at its first prompt
 * and kept for the session's life, as the run config's rules are anchored once per run
 * ({@link prepareRun}): a server resolved both folders' links at every prompt of every session
 * (issue 26 figure 7d, bench/notes/fleet25.md). A link in either path changed later is read by
 * the next session.
 */
function sessionSpellings(session: Session): { cwds: string[]; homes: string[] } {
  let spellings = spellingsOfSessions.get(session);
  if (spellings === undefined) {
    spellings = { cwds: folderSpellings(session.cwd), homes: folderSpellings(homedir()) };
    spellingsOfSessions.set(session, spellings);
  }
  return spellings;
}

/** Each session's view of the MCP config files, for the gate's later-run judgement. */
const serverConfigsOfSessions = new WeakMap<Session, ServerConfigView>();

/**
 * `session`'s view of the MCP config files (tools/sandbox/server-programs.ts
 * `ServerConfigView`): kept for the session's life and shared by its permission gate and its
 * sandboxed commands, so neither `auto`'s decision about an edit nor a command reads a config
 * file again unless it changed.
 */
function serverConfigsOf(session: Session): ServerConfigView {
  let view = serverConfigsOfSessions.get(session);
  if (view === undefined) {
    view = new Map();
    serverConfigsOfSessions.set(session, view);
  }
  return view;
}

/** `folder` (absolute) as given, then with its links resolved when that differs. */
function folderSpellings(folder: string): string[] {
  try {
    const real = realpathSync(folder);
    return real === folder ? [folder] : [folder, real];
  } catch {
    return [folder];
  }
}

/** How a face's session asks and decides; every field optional except the mode. */
export interface PermissionCallbacks {
  /** How the face asks its user; absent: calls that need asking are denied with `noAskReason`. */
  ask?: AskPermission;
  noAskReason?: PermissionGateOptions["noAskReason"];
  /**
   * Whether every tool runs without asking, read at each decision (a session's mode may change
   * while a turn runs); absent: whether the permission mode is `full-access`.
   */
  allowAllTools?: () => boolean;
  /** The session's permission mode, read at each decision; absent: the run config's. */
  permissionMode?: () => PermissionMode;
  /** The session's sandbox policy (ACP config option, SDK session config); absent: the run config's. */
  sandboxPolicy?: SandboxPolicy;
  /**
   * Folders besides the run config's that may be read without asking (ACP `additionalDirectories`);
   * the sandbox treats them as the run config's `--add-dir` folders.
   */
  folders?: readonly string[];
  /** Ignore allow rules and grants: ask about everything the rules do not deny. */
  ignoreAllowRules?: boolean;
}

/** What a face hands in for a prompt: the session's model and mode, and its callbacks. */
export interface FaceCallbacks extends PermissionCallbacks {
  provider: Provider;
  autopilot: boolean;
  /** Tools besides the built-in ones (e.g. an SDK app's). */
  extraTools?: readonly AnyTool[];
  /** The client's file access (ACP), used by tools instead of the disk. */
  client?: ClientCapabilities;
  /** Runs commands instead of the host's runner (ACP: the client's terminal), unless a sandbox confines them. */
  runner?: CommandRunner;
  /**
   * The face's words for its settings in the loop's advice, where they differ from its host's
   * (the interactive face: `/model`, while its host's start-up errors name `--model`).
   */
  settingNames?: ModelSettingNames;
}

/**
 * The loop settings for `session`: provider, built-in and the face's tools, system prompt, limits,
 * and the permission gate ({@link permissionGateFor}); `settingNames`, the face's words for its
 * settings in the loop's advice (a prompt too large for the window, a context exhausted), unless
 * `face.settingNames` gives its own.
 */
export function agentSettingsFor(
  session: Session,
  run: PreparedRun,
  face: FaceCallbacks,
  settingNames?: ModelSettingNames,
): SessionAgentSettings {
  const { config } = run;
  const names = face.settingNames ?? settingNames;
  const contextWindows = Object.fromEntries(
    Object.entries(config.contextWindows).map(([model, size]) => [model, size.value]),
  );
  return {
    provider: face.provider,
    tools: [...builtinTools(), ...(face.extraTools ?? [])],
    systemPrompt: systemPromptFor(session, run, face.autopilot),
    maxTurns: config.maxTurns.value,
    autopilot: face.autopilot,
    maxAutopilotContinues: config.maxAutopilotContinues.value,
    ...(face.client === undefined ? {} : { client: face.client }),
    commands: commandsFor(session, run, face),
    secrets: run.secrets,
    ...(run.contextWindow === undefined ? {} : { contextWindow: run.contextWindow }),
    contextWindows,
    authorize: permissionGateFor(session, run, face),
    ...(names === undefined ? {} : { settingNames: names }),
  };
}

/**
 * How `session`'s commands run: in the sandbox when its policy confines them (also instead of the
 * face's runner: the ACP client's terminal runs outside it), with the host's runner to run a
 * command again outside it once the user agreed; else the face's runner or the host's.
 */
function commandsFor(session: Session, run: PreparedRun, face: FaceCallbacks): CommandSetup {
  const policy = sandboxPolicyOf(run, face);
  if (policy === "danger-full-access") {
    return face.runner === undefined ? run.commands : { ...run.commands, runner: face.runner };
  }
  const ask = createSandboxExitAsker(gateOptionsFor(session, run, face));
  return {
    ...run.commands,
    runner: run.sandbox.runner(policy, face.folders, serverConfigsOf(session)),
    outside: { runner: run.commands.runner, ask },
  };
}

function sandboxPolicyOf(run: PreparedRun, face: PermissionCallbacks): SandboxPolicy {
  const mode = face.permissionMode?.() ?? run.config.permissionMode.value;
  return run.sandbox.policyFor(mode, face.sandboxPolicy);
}

/**
 * The permission gate of `session`: the run config's deny and allow rules, then the session's
 * recorded "always" answers, its folders and the face's way to ask. Questions and answers are
 * recorded in the session's log.
 */
export function permissionGateFor(
  session: Session,
  run: PreparedRun,
  face: PermissionCallbacks,
): Authorize {
  return createPermissionGate(gateOptionsFor(session, run, face));
}

/**
 * The gate's options: the policy (rules, grants, folders, the permission mode and where commands
 * run, read at each decision), how to record and how to ask.
 */
function gateOptionsFor(
  session: Session,
  run: PreparedRun,
  face: PermissionCallbacks,
): PermissionGateOptions {
  const { config } = run;
  const folders = [...config.folders.map((folder) => folder.value), ...(face.folders ?? [])];
  const modeOf = face.permissionMode ?? (() => config.permissionMode.value);
  const policy = run.sandbox.policyFor(modeOf(), face.sandboxPolicy);
  // A grant's path is relative to the session's folder (permission-decision.ts `alwaysRule`).
  const { cwds, homes } = sessionSpellings(session);
  const grants = (rules: readonly PermissionRule[]) => anchoredRules(rules, cwds, homes);
  return {
    cwd: session.cwd,
    policy: async () => {
      const mode = modeOf();
      const confinement = await run.sandbox.confinement(policy);
      return {
        allowAllTools: face.allowAllTools?.() ?? mode === "full-access",
        auto: mode === "auto" && confinement.policy !== "danger-full-access",
        confinement,
        allow:
          face.ignoreAllowRules === true ? [] : [...run.allow, ...grants(session.grants.allow)],
        deny: [...run.deny, ...grants(session.grants.deny)],
        folders,
        hiddenPlaces: { places: run.sandbox.hiddenPlaces(), open: session.directory },
        turnloopHome: run.turnloopHome,
        serverConfigs: serverConfigsOf(session),
        gitUser: run.sandbox.gitUser(session.cwd),
      };
    },
    emit: (event) => void session.emit(event),
    ...(face.ask === undefined ? {} : { ask: face.ask }),
    ...(face.noAskReason === undefined ? {} : { noAskReason: face.noAskReason }),
  };
}

/**
 * The system prompt for `session`: ours (or `--system-prompt-file`'s), the instruction files that
 * apply in its cwd, then `--append-system-prompt`. Records `session.instructions_loaded` when the
 * files used or the warnings about them differ from the last ones recorded in the session, and
 * says files cut or left out when that is new to the session (instructions.ts,
 * `recordInstructions`).
 */
function systemPromptFor(session: Session, run: PreparedRun, autopilot: boolean): string {
  const loaded =
    run.instructionsHome === undefined
      ? { files: [], text: "", warnings: [] }
      : loadInstructions(session.cwd, run.instructionsHome);
  const files = [...loaded.files];
  if (run.systemPrompt !== undefined) {
    const bytes = Buffer.byteLength(run.systemPrompt.text);
    files.unshift({
      path: run.systemPrompt.path,
      scope: "system-prompt-file",
      bytes,
      truncated: false,
    });
  }
  const append = run.config.appendSystemPrompt?.value;
  const appendedBytes = append === undefined ? undefined : Buffer.byteLength(append);
  const record = { files, ...(appendedBytes === undefined ? {} : { appendedBytes }) };
  recordInstructions(session, record, loaded.warnings);
  return buildSystemPrompt({
    cwd: session.cwd,
    platform: process.platform,
    date: new Date(session.start.startTime),
    autopilot,
    instructions: loaded.text,
    ...(run.systemPrompt === undefined ? {} : { base: run.systemPrompt.text }),
    ...(append === undefined ? {} : { append }),
  });
}
