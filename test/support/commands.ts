import { secretValues } from "../../src/events/secrets.js";
import { commandEnvironment } from "../../src/session/command-environment.js";
import type { CommandSetup } from "../../src/tools/command-runner.js";
import { ProcessRunner } from "../../src/tools/process-runner.js";

/**
 * What a session host hands tools for commands, built as the host builds it from this test
 * process's environment: the local process runner and the command environment (keys removed).
 */
export function localCommands(): CommandSetup {
  return { runner: new ProcessRunner(), env: commandEnvironment(process.env, []) };
}

/** The secrets of this test process's environment, as a host computes them. */
export function localSecrets() {
  return secretValues(process.env);
}
