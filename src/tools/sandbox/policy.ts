import { resolve } from "node:path";
import type { SandboxSettings } from "./sandbox-settings.js";

export type { CommandLine, SandboxSettings } from "./sandbox-settings.js";

/**
 * Sandbox policies and the settings a sandboxed command needs (issue 23). The policy names are
 * Codex's (`--sandbox read-only | workspace-write | danger-full-access`), so its users know them.
 */

/** The sandbox policies, from the most confined to none. */
export const SANDBOX_POLICIES = ["read-only", "workspace-write", "danger-full-access"] as const;

/**
 * - `read-only`: the whole file system is read-only; only a private `/tmp` is writable.
 * - `workspace-write`: as `read-only`, plus the session's cwd and its additional directories are
 *   writable, except the `hooks` and `config` of the git repositories in them and each one's
 *   {@link LATER_RUN_CONFIGURATION} (turnloop's own files, start-up files, other programs').
 * - `danger-full-access`: no sandbox; the command runs as the user with everything the user has.
 */
export type SandboxPolicy = (typeof SANDBOX_POLICIES)[number];

/** Whether `text` names a {@link SandboxPolicy}, e.g. for a flag or a config value. */
export function isSandboxPolicy(text: string): text is SandboxPolicy {
  return (SANDBOX_POLICIES as readonly string[]).includes(text);
}

/**
 * What a project folder holds that configures later runs, besides git's `hooks` and `config`:
 * turnloop's project config folder (permission mode, allow rules, base URL) and the MCP servers
 * file (servers start outside the sandbox). One list for both guards: permission mode `auto` asks
 * about an edit to any of them (permissions/later-runs.ts `isConfigurationOfLaterRuns`),
 * and the sandbox keeps each writable root's read-only for commands, what one leads through and
 * one that does not exist yet included (configuration-chain.ts, configuration-guard.ts).
 */
export const PROJECT_CONFIGURATION: readonly string[] = [".turnloop", ".mcp.json"];

/**
 * What a shell or git reads from a home folder and runs later, outside the sandbox: bash's and
 * zsh's startup files (bash(1) "INVOCATION", zsh(1) "STARTUP/SHUTDOWN FILES"; `.profile` is sh's
 * and dash's too), git's user config (`.gitconfig`, `.config/git/`: `core.fsmonitor`,
 * `core.pager` and aliases run programs) and `.local/bin`, early in a usual `PATH` (a `git` there
 * runs instead of git). Each writable root's are kept read-only as its
 * {@link PROJECT_CONFIGURATION} is (configuration-chain.ts), since the workspace may be the home
 * folder (`cd ~ && turnloop`; a trial planted all of these there); `@anthropic-ai/sandbox-runtime`
 * keeps the same files from writes (its `DANGEROUS_FILES`). Paths relative to the root.
 */
export const STARTUP_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshenv",
  ".zshrc",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".gitconfig",
  ".config/git",
  ".local/bin",
];

/**
 * The files git hook managers read when a hook runs, at the user's next `git commit` or `git
 * push`, outside the sandbox, and the commands in them they run, relative to a folder:
 * pre-commit's `.pre-commit-config.yaml` (its `repo: local` hooks' `entry`), lefthook's config
 * in each of its formats and names, its `-local` one and its script folders `.lefthook` and
 * `.lefthook-local` (lefthook.dev, "Config file name", `source_dir`), lint-staged's config files
 * (lint-staged's `CONFIG_FILE_NAMES` but `package.json` and `package.yaml`) and overcommit's
 * `.overcommit.yml`.
 */
export const HOOK_MANAGER_CONFIGURATION: readonly string[] = [
  ".pre-commit-config.yaml",
  ...["lefthook", "lefthook-local"].flatMap((name) =>
    ["yml", "yaml", "toml", "json", "jsonc"].flatMap((format) => [
      `${name}.${format}`,
      `.${name}.${format}`,
    ]),
  ),
  ".lefthook",
  ".lefthook-local",
  ".lintstagedrc",
  ...["json", "yaml", "yml", "mjs", "mts", "js", "ts", "cjs", "cts"].map(
    (format) => `.lintstagedrc.${format}`,
  ),
  ...["mjs", "mts", "js", "ts", "cjs", "cts"].map((format) => `lint-staged.config.${format}`),
  ".overcommit.yml",
];

/** {@link HOOK_MANAGER_CONFIGURATION} as entries of {@link TOOL_CONFIGURATION}. */
function hookManagerConfiguration(): { place: string; why: (what: string) => string }[] {
  return HOOK_MANAGER_CONFIGURATION.map((place) => ({
    place,
    why: (what: string) =>
      `a git hook manager (pre-commit, lefthook, lint-staged, overcommit) reads ${what} at your next commit and runs the commands it names, outside the sandbox`,
  }));
}

/**
 * What other programs read from a project folder and act on later, outside the sandbox, without
 * the user choosing to run the project's code: opening the folder in an editor, entering it in a
 * shell, any npm, yarn or git command there, another agent started there. Each writable root's,
 * and those in its folders ({@link NESTED_CONFIGURATION}), are kept read-only as its
 * {@link PROJECT_CONFIGURATION} is. Decided against the anchors:
 * `@anthropic-ai/sandbox-runtime` keeps `.vscode`, `.idea`, `.gitmodules`, `.mcp.json` and
 * Claude Code's `.claude/commands` and `.claude/agents` from writes (its `DANGEROUS_FILES`,
 * `DANGEROUS_DIRECTORIES`), Codex keeps `.codex` and `.agents` read-only in its writable roots;
 * Gemini CLI's and Cursor's project folders are kept as `.claude` and `.codex` are.
 * Each entry, with `why` about it (`what` names it: `it`, or its name):
 * - `.vscode`: VS Code runs a task of `tasks.json` when the folder opens (`"runOn":
 *   "folderOpen"`), and `settings.json` names the interpreter, formatter, linter and terminal
 *   environment it runs (`python.defaultInterpreterPath`, `terminal.integrated.env.linux`);
 * - `.idea`: JetBrains IDEs run its run configurations, startup tasks and external tools;
 * - `.npmrc`: a project's is read by every npm command there (npmrc(5)): `script-shell` and
 *   `node-options` (`--require`) run programs;
 * - `.yarnrc.yml`, `.yarnrc`: every yarn command there runs the file `yarnPath` (yarn ≥ 2) or
 *   `yarn-path` (yarn 1) names instead of yarn;
 * - `.envrc`: direnv runs it when a shell enters the folder (after one `direnv allow`, which a
 *   user gives by habit when asked again);
 * - `.gitmodules`: `git submodule update` fetches and checks out the repositories it names;
 * - `.claude`: Claude Code runs the hooks its `settings.json` names, and its commands and agents
 *   are instructions it follows;
 * - `.codex`: Codex's project config (MCP servers it starts);
 * - `.agents`: Codex's project skills (scripts it runs);
 * - `.gemini`: Gemini CLI's project `settings.json` names MCP servers it starts, hooks it runs and
 *   a tool discovery command, and its `commands/*.toml` run the shell commands their `!{…}` name;
 * - `.cursor`: Cursor starts the MCP servers its `mcp.json` names and runs the hooks its
 *   `hooks.json` names, and follows its rules;
 * - `.devcontainer`: VS Code and the `devcontainer` CLI run the `initializeCommand` its
 *   `devcontainer.json` names on this machine when they build the container (VS Code offers to
 *   when the folder opens).
 * - {@link HOOK_MANAGER_CONFIGURATION}: what the git hooks of pre-commit, lefthook, lint-staged
 *   and overcommit read at the user's next commit and run (a trial's `repo: local` entry of
 *   `.pre-commit-config.yaml`).
 * Left out: instruction files (`AGENTS.md` and the like, session/instructions.ts) and `.env`,
 * ordinary work a model is asked to do and no program's own configuration of what it runs;
 * `.ripgreprc`, which ripgrep reads only where `RIPGREP_CONFIG_PATH` names it; a project's
 * scripts (`package.json`, a `Makefile`), code the user runs by choice, with lint-staged's key in
 * `package.json`; and lefthook's files in `.config/`.
 */
const TOOL_CONFIGURATION: readonly { place: string; why: (what: string) => string }[] = [
  {
    place: ".vscode",
    why: (what) =>
      `your editor runs what ${what} names later, outside the sandbox (a task run when the folder opens, an interpreter, a formatter, a terminal's environment)`,
  },
  {
    place: ".idea",
    why: (what) =>
      `JetBrains IDEs run what ${what} names later, outside the sandbox (run configurations, startup tasks, external tools)`,
  },
  {
    place: ".npmrc",
    why: (what) =>
      `npm reads ${what} at every command in this folder and runs the programs it names, outside the sandbox (script-shell, node-options)`,
  },
  {
    place: ".yarnrc.yml",
    why: (what) =>
      `yarn reads ${what} at every command in this folder and runs the file its yarnPath names, outside the sandbox`,
  },
  {
    place: ".yarnrc",
    why: (what) =>
      `yarn 1 reads ${what} at every command in this folder and runs the file its yarn-path names, outside the sandbox`,
  },
  {
    place: ".envrc",
    why: (what) => `direnv runs ${what} when your shell enters the folder, outside the sandbox`,
  },
  {
    place: ".gitmodules",
    why: (what) =>
      `git submodule update fetches and checks out the repositories ${what} names, outside the sandbox`,
  },
  {
    place: ".claude",
    why: (what) =>
      `Claude Code runs the hooks ${what} names and follows its commands and agents later, outside the sandbox`,
  },
  {
    place: ".codex",
    why: (what) =>
      `Codex reads ${what} later, outside the sandbox, and starts the MCP servers it names`,
  },
  {
    place: ".agents",
    why: (what) =>
      `Codex reads the skills in ${what} later, outside the sandbox, and runs their scripts`,
  },
  {
    place: ".gemini",
    why: (what) =>
      `Gemini CLI reads ${what} later, outside the sandbox, and starts the MCP servers and runs the hooks and commands it names`,
  },
  {
    place: ".cursor",
    why: (what) =>
      `Cursor reads ${what} later, outside the sandbox, starts the MCP servers and runs the hooks it names, and follows its rules`,
  },
  {
    place: ".devcontainer",
    why: (what) =>
      `your editor runs the initializeCommand ${what} names on this machine, outside the sandbox, when it builds the dev container`,
  },
  ...hookManagerConfiguration(),
];

/**
 * The places of {@link TOOL_CONFIGURATION}, which programs read in any folder they run or open in
 * (a package's own `pkg/.npmrc`, `sub/.vscode` opened as a folder of its own): the sandbox keeps
 * those in a writable root's folders too, at any depth (`packages/a/.npmrc`), not only the root's
 * (workspace-walk.ts `WorkspaceWalk`, configuration-chain.ts, configuration-guard.ts).
 */
export const NESTED_CONFIGURATION: readonly string[] = TOOL_CONFIGURATION.map(({ place }) => place);

/**
 * Everything that configures later runs, besides git's own folder: {@link PROJECT_CONFIGURATION},
 * {@link STARTUP_FILES}, then {@link TOOL_CONFIGURATION}'s places, paths relative to a folder.
 * The one list both guards read: the sandbox keeps each writable root's read-only, one that does
 * not exist yet removed when a command makes it (configuration-chain.ts,
 * configuration-guard.ts), and permission mode `auto` asks about an edit of any of them,
 * wherever it lies (permissions/later-runs.ts `isConfigurationOfLaterRuns`).
 */
export const LATER_RUN_CONFIGURATION: readonly string[] = [
  ...PROJECT_CONFIGURATION,
  ...STARTUP_FILES,
  ...NESTED_CONFIGURATION,
];

/**
 * Why `place`, one of {@link LATER_RUN_CONFIGURATION} or a file an MCP server runs (its path:
 * server-programs.ts), is kept from sandboxed commands and edits made without asking, as a
 * clause naming it `what` (`it`, `them`, a name): who reads it later and what that runs.
 */
export function laterRunReason(place: string, what: string): string {
  if (PROJECT_CONFIGURATION.includes(place)) {
    return `turnloop reads ${what} to configure later runs (permissions, base URL, MCP servers it starts)`;
  }
  const tool = TOOL_CONFIGURATION.find((each) => each.place === place);
  if (tool !== undefined) {
    return tool.why(what);
  }
  return STARTUP_FILES.includes(place)
    ? `your shell or git reads ${what} and runs what it says later, outside the sandbox (shell start-up, core.fsmonitor, a program early in PATH)`
    : SERVER_PROGRAM_REASON.replace("WHAT", what);
}

/** Why a file an MCP server runs is kept (server-programs.ts), `WHAT` standing for its name. */
export const SERVER_PROGRAM_REASON =
  "an MCP server config (.mcp.json, .turnloop/config.json, mcp.json) names WHAT, and turnloop runs it when a session starts, outside the sandbox";

/** How every reason of protected-place-stops.ts starts, so a face can tell it from the others. */
export const PROTECTED_REASON_START = "the sandbox keeps ";

/** Whether a reason of the sandbox's is a protected place's (protected-place-stops.ts). */
export function isProtectedPlaceStop(reason: string): boolean {
  return reason.startsWith(PROTECTED_REASON_START);
}

/**
 * The user's credential places hidden from sandboxed commands by default, relative to the home
 * folder: issue 23's list (ssh, the clouds' CLIs, Docker, Kubernetes, `.netrc`, npm's and PyPI's
 * tokens, git's credential store, GnuPG), then what a trial read from a sandbox (session 27:
 * GitHub's CLI `hosts.yml`, Cargo's registry token; session 34: Gemini CLI's OAuth token, GitHub
 * Copilot's, Terraform's `.terraformrc`, sops' age keys, yarn 2's `npmAuthToken`, rclone's
 * remotes, the container tools' registry logins, browser profiles) and other tools' tokens:
 * other agents' logins (Claude Code, Codex, Copilot CLI), package registries' (RubyGems,
 * Composer, NuGet, pip's and Poetry's index passwords, Bundler's, Ivy's), the clouds' and
 * hosting CLIs' (Oracle's, DigitalOcean's, Fly's, Pulumi's, gsutil's `.boto`, s3cmd's, Databricks',
 * GitLab's and hub's, Hugging Face's, Kaggle's), PostgreSQL's `.pgpass`, Maven's and Gradle's
 * repository passwords, Vault's token, Terraform's registry tokens, git's XDG credential store,
 * password stores and keyrings (`pass`, GNOME Keyring, 1Password's and Bitwarden's CLIs),
 * browsers' profiles (saved passwords, cookies: Chrome, Chromium, Brave, Edge, Firefox); shell
 * and REPL histories (passwords typed on a command line, `export TOKEN=…`); and the default
 * `~/.turnloop`, which holds earlier sessions' logs also when `TURNLOOP_HOME` points elsewhere.
 * `TURNLOOP_HOME` (the session logs) and the user's runtime folder are added by
 * {@link SandboxSettings}, not listed here. README's "Sandbox" lists the same, in this order
 * (test/tools/sandbox/hidden-list-readme.test.ts).
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  ".ssh",
  ".aws",
  ".config/gcloud",
  ".azure",
  ".docker",
  ".dockercfg",
  ".config/containers/auth.json",
  ".kube",
  ".netrc",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".config/pip/pip.conf",
  ".pip/pip.conf",
  ".config/pypoetry/auth.toml",
  ".gem/credentials",
  ".bundle/config",
  ".config/composer/auth.json",
  ".composer/auth.json",
  ".nuget/NuGet/NuGet.Config",
  ".ivy2/.credentials",
  ".git-credentials",
  ".config/git/credentials",
  ".gnupg",
  ".config/gh",
  ".config/hub",
  ".config/glab-cli",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".claude",
  ".claude.json",
  ".codex",
  ".gemini",
  ".copilot",
  ".config/github-copilot",
  ".pgpass",
  ".m2/settings.xml",
  ".m2/settings-security.xml",
  ".gradle/gradle.properties",
  ".vault-token",
  ".terraform.d",
  ".terraformrc",
  ".config/sops",
  ".config/rclone",
  ".oci",
  ".config/doctl",
  ".fly",
  ".pulumi/credentials.json",
  ".boto",
  ".s3cfg",
  ".databrickscfg",
  ".cache/huggingface/token",
  ".huggingface/token",
  ".kaggle/kaggle.json",
  ".password-store",
  ".local/share/keyrings",
  ".config/op",
  ".config/Bitwarden CLI",
  ".config/google-chrome",
  ".config/chromium",
  ".config/BraveSoftware",
  ".config/microsoft-edge",
  ".mozilla",
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".local/share/fish/fish_history",
  ".turnloop",
];

/** One name of a path: neither empty nor `.` nor `..`. */
const NAME = String.raw`(?!\.{1,2}(?:/|$))[^/]+`;
/** An absolute path spelled as `path.resolve` spells it, the root aside. */
const NORMAL_ABSOLUTE = new RegExp(`^(?:/${NAME})+$`);
/** A relative path spelled as `path.normalize` spells it, `.` aside. */
const NORMAL_RELATIVE = new RegExp(`^${NAME}(?:/${NAME})*$`);

/**
 * `path.resolve(path)`: `path` itself when it is absolute and spelled so already, without calling
 * it. Node's `resolve` walks the path character by character; a few hundred calls in a tool call
 * were enough for V8 to optimise it, paging in its optimising compiler, about 4 MiB of a
 * one-prompt run's peak RSS (bench/notes/rss33.md).
 */
export function normalAbsolutePath(path: string): string {
  return NORMAL_ABSOLUTE.test(path) ? path : resolve(path);
}

/**
 * `resolve(folder, entry)` (`folder` absolute, `entry` relative), joined as text when both are
 * spelled normally (every default hidden place is): see {@link normalAbsolutePath}.
 */
export function resolvedBelow(folder: string, entry: string): string {
  return NORMAL_ABSOLUTE.test(folder) && NORMAL_RELATIVE.test(entry)
    ? `${folder}/${entry}`
    : resolve(folder, entry);
}

/**
 * The size cap of the sandbox's private `/tmp` and `/dev/shm`, in MiB, each: without one a tmpfs
 * may grow to half the machine's memory (tmpfs(5), `size`), taken from RAM. bwrap(1) `--size`
 * before `--tmpfs` sets it (bubblewrap ≥ 0.7.0; availability.ts asks for ≥ 0.8.0).
 */
export const DEFAULT_TMPFS_SIZE_MIB = 1024;
