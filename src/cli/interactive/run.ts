import { errorMessage } from "../../events/errors.js";
import { missingApiKey } from "../../llm/api-keys.js";
import type { SessionMode } from "../../session/commands.js";
import type { SessionHost } from "../../session/host.js";
import type { RunConfig } from "../../session/run-config.js";
import { defaultSessionMode } from "../../session/sandbox-setup.js";
import type { InteractiveOptions } from "../arguments.js";
import { EXIT, type SessionChoice } from "./open.js";

/** Where the interactive face reads, writes and keeps its files. */
export interface InteractiveIo {
  /** The run config: flags, environment and config files resolved. */
  config: RunConfig;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** `$TURNLOOP_HOME`. */
  home: string;
}

/**
 * Runs `turnloop` without `-p`: the full-screen session when stdin and stdout are terminals and
 * `TERM` is not `dumb`, else plain lines. Loads the terminal UI only for the full screen.
 * @returns the exit code: 0 after /exit, Ctrl-D or Ctrl-C twice; 64 for a bad command line or
 * model; 1 when the session cannot be opened (e.g. open in another process).
 */
export async function runInteractiveCommand(
  options: InteractiveOptions,
  io: InteractiveIo,
): Promise<number> {
  const cwd = io.config.cwd.value;
  // Loaded on demand: the host's modules (providers, tools) are most of the start-up time.
  const createHost = async () => {
    const { SessionHost } = await import("../../session/host.js");
    return new SessionHost({ home: io.home, env: io.env, config: io.config });
  };
  const choice: SessionChoice =
    typeof options.resume === "string"
      ? { kind: "id", idOrPrefix: options.resume, cwdGiven: io.config.cwd.source === "--cwd" }
      : options.resume !== undefined
        ? { kind: "pick" }
        : options.continue
          ? { kind: "continue" }
          : { kind: "new" };
  const mode: SessionMode = defaultSessionMode(io.config);
  const common = {
    cwd,
    choice,
    mode,
    fullAccess: io.config.permissionMode.value === "full-access",
    stdout: io.stdout,
    stderr: io.stderr,
    ...(options.prompt === undefined ? {} : { firstPrompt: options.prompt }),
  };
  const fullScreen = io.stdin.isTTY === true && io.stdout.isTTY === true && io.env.TERM !== "dumb";
  if (!fullScreen) {
    let host: SessionHost;
    try {
      host = await createHost();
    } catch (error) {
      io.stderr.write(`turnloop: ${errorMessage(error)}\n`);
      return EXIT.usage;
    }
    const { runPlainFace } = await import("./plain-face.js");
    return runPlainFace({ ...common, host, input: io.stdin });
  }
  const { runTerminalFace } = await import("./terminal-face.js");
  const model = io.config.model?.resolved;
  const modelSet = model !== undefined && model !== "";
  // A missing key is reported before anything is drawn: the screen is not drawn early then.
  const keyMissing = modelSet && missingApiKey(model, io.env);
  return runTerminalFace({
    ...common,
    openHost: createHost,
    drawAtOnce: !keyMissing && (choice.kind !== "new" || modelSet),
    // As written: a profile's model (`lab:m`) is named by its profile, as its session is.
    modelHint: io.config.model?.value ?? "",
    home: io.home,
    color: io.env.NO_COLOR === undefined || io.env.NO_COLOR === "",
  });
}
