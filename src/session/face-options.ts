import type { PermissionMode } from "../permissions/permission-mode.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";

/** Settings every face (`-p`, `acp`, the server) takes from its command line; the environment fills in the rest. */
export interface FaceOptions {
  model?: string;
  baseUrl?: string;
  /** Model requests per prompt. */
  maxTurns: number;
  autopilot: boolean;
  maxAutopilotContinues: number;
  allowAllTools: boolean;
  /** `--permission-mode ask|auto|full-access`. */
  permissionMode?: PermissionMode;
  /** `--sandbox read-only|workspace-write|danger-full-access`. */
  sandbox?: SandboxPolicy;
  /** `--sandbox-network`: sandboxed commands may use the network. */
  sandboxNetwork?: boolean;
  /** `--allow-tool NAME[(pattern)]`, repeatable. */
  allowTools: string[];
  /** `--deny-tool NAME[(pattern)]`, repeatable. */
  denyTools: string[];
  /** `--add-dir DIR`, repeatable: folders besides the cwd that may be read without asking. */
  addDirs: string[];
  cwd: string;
  /** `--no-instructions`: leave out `AGENTS.md` and the like. */
  noInstructions?: boolean;
  /**
   * `--ignore-config-errors`: an unknown key in or instead of a config file's `permissions` is a
   * warning, not an error (config.ts).
   */
  ignoreConfigErrors?: boolean;
  /** `--append-system-prompt TEXT`. */
  appendSystemPrompt?: string;
  /** `--system-prompt-file F`: replaces turnloop's base system prompt. */
  systemPromptFile?: string;
  /** Long names of the options given on the command line (config files fill in the others). */
  flagsGiven?: string[];
  /** `--mcp-config FILE`, repeatable: more MCP servers (`{"mcpServers": {...}}`). */
  mcpConfigs: string[];
  /** `--context-window N`: the model's context window in tokens (for unknown and local models). */
  contextWindow?: number;
  /** `--store postgres://…`: keep sessions in that PostgreSQL database (issue 22). */
  store?: string;
  /** Context windows (tokens) by model id, from the config files' `contextWindows`. */
  contextWindows?: Readonly<Record<string, number>>;
}
