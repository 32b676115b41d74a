/**
 * `turnloop/sdk`: drive turnloop from an app. The SDK starts `turnloop --headless --stdio` (or
 * connects to `--port N`) and speaks the core of the Copilot SDK protocol with it; the agent loop
 * runs in that process and its session events stream back, typed by the runtime's own union.
 */

export { TurnloopClient } from "./client.js";
export { DEFAULT_WAIT_MS, TurnloopSession } from "./session.js";
export {
  type ArgumentsOf,
  defineTool,
  type StandardSchema,
  type Tool,
  type ToolInvocation,
  type ToolSettings,
} from "./tools.js";
export * from "./types.js";
