import type { FaceOptions } from "../../src/session/face-options.js";

/**
 * The options a face hands the run config when no flag is given (`turnloop` with no options),
 * in the folder `cwd`.
 */
export function defaultFaceOptions(cwd: string): FaceOptions {
  return {
    cwd,
    maxTurns: 100,
    autopilot: false,
    maxAutopilotContinues: 5,
    allowAllTools: false,
    allowTools: [],
    denyTools: [],
    addDirs: [],
    mcpConfigs: [],
  };
}
