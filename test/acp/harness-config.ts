import { configuredFace } from "../../src/session/face-config.js";
import type { FaceOptions } from "../../src/session/face-options.js";
import type { RunConfig } from "../../src/session/run-config.js";
import { defaultFaceOptions } from "../support/face-options.js";
import type { ModelPlace } from "../support/model-place.js";
import type { AcpHarnessOptions } from "./support.js";

/** The environment and flags the in-process ACP harness (support.ts) starts its agent with. */

export function harnessEnvironment(
  place: ModelPlace,
  options: AcpHarnessOptions,
): NodeJS.ProcessEnv {
  return {
    // As a real editor starts the agent: with a PATH (bubblewrap is found there).
    PATH: process.env.PATH,
    TURNLOOP_MODEL: "openai-compatible:fake-model",
    TURNLOOP_BASE_URL: `${place.server.url}/v1`,
    TURNLOOP_RETRY_BASE_DELAY_MS: "1",
    TURNLOOP_MAX_RETRIES: "1",
    // The home the host's sessions and the config files it reads again are in (session-runs.ts).
    ...(options.readConfigFiles === true ? { TURNLOOP_HOME: place.home } : {}),
    ...options.env,
  };
}

export function harnessFlags(place: ModelPlace, options: AcpHarnessOptions): FaceOptions {
  return { ...defaultFaceOptions(place.cwd), ...options.face };
}

/** The run config from the config files, with {@link AcpHarnessOptions.readConfigFiles}. */
export async function filesConfig(
  place: ModelPlace,
  options: AcpHarnessOptions,
): Promise<RunConfig | undefined> {
  if (options.readConfigFiles !== true) {
    return undefined;
  }
  const env = harnessEnvironment(place, options);
  const configured = await configuredFace(harnessFlags(place, options), env);
  if (!configured.ok) {
    throw new Error(configured.message);
  }
  return configured.config;
}
