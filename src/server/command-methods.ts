/**
 * The Copilot SDK's `session.commands.list` and `invoke` (names, params and results of the SDK's
 * generated `rpc.d.ts`: `CommandList`, `SlashCommandInfo`, `CommandsInvokeRequest`,
 * `SlashCommandInvocationResult`) over turnloop's slash commands (src/session/commands.ts), the
 * ones a face without a terminal of its own runs (ACP's set: not `/new`, `/resume`, `/exit`).
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import {
  COMMANDS,
  type CommandDefinition,
  type CommandOutcome,
  parseCommandLine,
} from "../session/commands.js";
import type { ClientConnection } from "./connection.js";
import { invalidParams, parseParams, sessionIdSchema } from "./params.js";
import type { ServerSession } from "./server-session.js";
import { openSession } from "./session-methods.js";

const SERVED: readonly CommandDefinition[] = COMMANDS.filter((command) => !command.terminalOnly);

const listParams = z.looseObject({ sessionId: sessionIdSchema });
const invokeParams = z.looseObject({
  sessionId: sessionIdSchema,
  name: z.string().min(1),
  input: z.string().optional(),
});

/** `session.commands.list` → `{commands}`: turnloop's built-in commands, with their input hints. */
export function commandsListMethod(connection: ClientConnection, raw: unknown) {
  const { sessionId } = parseParams("session.commands.list", listParams, raw);
  openSession(connection.server, sessionId);
  return {
    commands: SERVED.map((command) => ({
      name: command.name,
      description: command.description,
      kind: "builtin",
      ...(command.input === undefined ? {} : { input: { hint: command.input.hint } }),
      allowDuringAgentExecution: false,
    })),
  };
}

/**
 * `session.commands.invoke {name, input?}` → a `SlashCommandInvocationResult`: `text` for what
 * the command shows (an error starts with `Error: `), `completed` for a command that changed the
 * session (`/model` switches the model, `/mode autopilot` the mode, `/compact` compacts now).
 * @throws invalidParams for a command turnloop does not have, or one only its terminal runs.
 */
export async function commandsInvokeMethod(connection: ClientConnection, raw: unknown) {
  const method = "session.commands.invoke";
  const params = parseParams(method, invokeParams, raw);
  const session = openSession(connection.server, params.sessionId);
  const name = params.name.replace(/^\/+/, "");
  const parsed = parseCommandLine(`/${name} ${params.input ?? ""}`, SERVED);
  if (parsed?.definition === undefined) {
    const names = SERVED.map((command) => command.name).join(", ");
    throw invalidParams(`${method}: no command "${name}" (turnloop's commands: ${names})`);
  }
  const outcome = await parsed.definition.run({
    host: connection.server.host,
    session: session.session,
    model: session.choices.model,
    mode: session.mode === "autopilot" ? "autopilot" : "ask",
    argument: parsed.argument,
  });
  return applyOutcome(session, outcome);
}

async function applyOutcome(session: ServerSession, outcome: CommandOutcome) {
  switch (outcome.kind) {
    case "text":
      return {
        kind: "text",
        text: outcome.error === true ? `Error: ${outcome.text}` : outcome.text,
      };
    case "model":
      session.switchModel(outcome.model);
      return { kind: "completed", message: outcome.text };
    case "mode":
      session.setMode(outcome.mode === "autopilot" ? "autopilot" : "interactive");
      return { kind: "completed", message: outcome.text };
    case "compact":
      try {
        const result = await session.compact(outcome.instructions);
        return result.ok
          ? { kind: "completed", message: `compacted ${result.messagesRemoved} messages` }
          : { kind: "text", text: `Error: ${result.message}` };
      } catch (error) {
        // A prompt is running or queued.
        return { kind: "text", text: `Error: ${errorMessage(error)}` };
      }
    case "open":
    case "choose-session":
    case "exit":
      // Only terminal-only commands give these, and they are not served here.
      return { kind: "text", text: "Error: this command runs in turnloop's interactive terminal" };
    default: {
      const unhandled: never = outcome;
      return unhandled;
    }
  }
}
