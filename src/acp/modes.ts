import type * as acp from "@agentclientprotocol/sdk";
import type { SessionHost } from "../session/host.js";
import type { RunConfig } from "../session/run-config.js";
import {
  defaultSessionMode,
  describeAutoMode,
  permissionModeOf,
} from "../session/sandbox-setup.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";

/**
 * The session modes turnloop offers over ACP (`session/set_mode`, and the `mode` config option).
 * `ask`: calls that need permission are asked through `session/request_permission`.
 * `auto`: permission mode `auto` (commands run in the sandbox and edits inside the workspace
 * without asking), or every tool without asking under `--allow-all-tools`; described as the run
 * config makes it.
 * `autopilot`: like `auto`, and the loop keeps going until the model calls `task_complete`.
 */
export type ModeId = "ask" | "auto" | "autopilot";

const MODE_IDS: readonly ModeId[] = ["ask", "auto", "autopilot"];

/**
 * The modes, `auto` described by `auto` (what runs without asking in this run and whether
 * commands are confined: session/sandbox-setup.ts `autoModeDescription`).
 */
function sessionModes(auto: string): acp.SessionMode[] {
  return [
    {
      id: "ask",
      name: "Ask",
      description: "Reads inside the workspace run freely; edits and commands ask first.",
    },
    { id: "auto", name: "Auto", description: `${auto.charAt(0).toUpperCase()}${auto.slice(1)}.` },
    {
      id: "autopilot",
      name: "Autopilot",
      description: "Works on its own until the task is done; asks as Auto does.",
    },
  ];
}

/** Id of the `mode` config option (category `mode`). */
export const MODE_OPTION_ID = "mode";
/** Id of the `model` config option (category `model`). */
export const MODEL_OPTION_ID = "model";
/** Id of the `sandbox` config option (custom category `_sandbox`): the commands' sandbox policy. */
export const SANDBOX_OPTION_ID = "sandbox";

/** The sandbox policies as choices (README, "Sandbox"). */
const SANDBOX_CHOICES: readonly { value: SandboxPolicy; name: string; description: string }[] = [
  {
    value: "read-only",
    name: "Read-only",
    description: "Commands read everything but secrets; they write only a private /tmp.",
  },
  {
    value: "workspace-write",
    name: "Workspace write",
    description: "Commands write inside the workspace only, without the network.",
  },
  {
    value: "danger-full-access",
    name: "Full access",
    description: "No sandbox: commands run with everything your user has.",
  },
];

export function isModeId(value: string): value is ModeId {
  return (MODE_IDS as readonly string[]).includes(value);
}

/** The mode a session starts in: `autopilot` with `--autopilot`, `auto` when the permission mode is not `ask`. */
export function defaultMode(config: Pick<RunConfig, "autopilot" | "permissionMode">): ModeId {
  return defaultSessionMode(config);
}

/**
 * ACP v1 session-modes: the `modes` field of `session/new` / `load` / `resume` answers; `auto`
 * describes mode `auto` as {@link sessionModes} says.
 */
export function modeState(current: ModeId, auto: string): acp.SessionModeState {
  return { currentModeId: current, availableModes: sessionModes(auto) };
}

/**
 * ACP v1 session-config-options: the full list, mode first (agents SHOULD send both `modes` and a
 * `category: "mode"` option during the transition), then the model, then the sandbox policy of
 * the session's commands (issue 23).
 */
export function configOptions(
  mode: ModeId,
  model: string,
  models: readonly string[],
  sandbox: SandboxPolicy,
  auto: string,
  unavailable?: string,
): acp.SessionConfigOption[] {
  return [
    {
      type: "select",
      id: MODE_OPTION_ID,
      name: "Mode",
      category: "mode",
      currentValue: mode,
      options: sessionModes(auto).map((entry) => ({
        value: entry.id,
        name: entry.name,
        ...(entry.description == null ? {} : { description: entry.description }),
      })),
    },
    {
      type: "select",
      id: MODEL_OPTION_ID,
      name: "Model",
      category: "model",
      currentValue: model,
      options: models.map((id) => ({ value: id, name: id })),
    },
    unavailable === undefined
      ? {
          type: "select",
          id: SANDBOX_OPTION_ID,
          name: "Sandbox",
          category: "_sandbox",
          currentValue: sandbox,
          options: SANDBOX_CHOICES.map((choice) => ({ ...choice })),
        }
      : unavailableSandboxOption(unavailable),
  ];
}

/**
 * The `sandbox` option where a confining policy was due and bubblewrap cannot run: its value
 * `unavailable` (not a policy: choosing it is refused, as choosing a confining policy is here),
 * with the reason in its description and the option's.
 */
function unavailableSandboxOption(reason: string): acp.SessionConfigOption {
  const description = `No sandbox can run here: ${reason} Commands and edits ask first, and run unconfined once allowed.`;
  return {
    type: "select",
    id: SANDBOX_OPTION_ID,
    name: "Sandbox",
    description,
    category: "_sandbox",
    currentValue: UNAVAILABLE,
    options: [
      { value: UNAVAILABLE, name: "Unavailable", description },
      ...SANDBOX_CHOICES.map((choice) => ({ ...choice })),
    ],
  };
}

/** The `sandbox` option's value where no sandbox can run. */
const UNAVAILABLE = "unavailable";

/** What `session/load` and `session/resume` of a session another worker holds answer. */
export interface FollowAnswer {
  modes: acp.SessionModeState;
  configOptions: acp.SessionConfigOption[];
}

/**
 * The modes and config options a session of model `sessionModel` opened here would start with
 * (the run config's default mode): what a follower answers (remote-session.ts; the owner keeps
 * its own choices).
 */
export function followAnswer(
  host: Pick<SessionHost, "config" | "modelForSession" | "sandbox" | "modelChoices">,
  sessionModel: string,
): FollowAnswer {
  const mode = defaultMode(host.config);
  const model = host.modelForSession(sessionModel);
  const modelId = model.ok ? model.configuration.id : sessionModel;
  const sandbox = host.sandbox.policyFor(permissionModeOf(mode, host.config));
  const auto = describeAutoMode(host.config);
  const models = host.modelChoices(modelId, sessionModel);
  return {
    modes: modeState(mode, auto),
    configOptions: configOptions(mode, modelId, models, sandbox, auto),
  };
}
