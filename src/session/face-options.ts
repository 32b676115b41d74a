/** Settings every face (`-p`, `acp`, the server) takes from its command line; the environment fills in the rest. */
export interface FaceOptions {
  model?: string;
  baseUrl?: string;
  /** Model requests per prompt. */
  maxTurns: number;
  autopilot: boolean;
  maxAutopilotContinues: number;
  allowAllTools: boolean;
  /** `--allow-tool NAME[(pattern)]`, repeatable. */
  allowTools: string[];
  /** `--deny-tool NAME[(pattern)]`, repeatable. */
  denyTools: string[];
  /** `--add-dir DIR`, repeatable: folders besides the cwd that may be read without asking. */
  addDirs: string[];
  cwd: string;
}
