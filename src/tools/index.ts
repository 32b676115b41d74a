import { bashTool } from "./bash.js";
import { createTool } from "./create.js";
import type { AnyTool } from "./define-tool.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { updatePlanTool } from "./update-plan.js";
import { viewTool } from "./view.js";

export { type BashInput, bashTool } from "./bash.js";
export { type CreateInput, createTool } from "./create.js";
export {
  type AnyTool,
  type ClientCapabilities,
  defineTool,
  type Tool,
  type ToolCallScope,
  type ToolContext,
  type ToolKind,
  type ToolResult,
} from "./define-tool.js";
export { type EditInput, editTool } from "./edit.js";
export { type GlobInput, globTool } from "./glob.js";
export { grepTool, runGrep } from "./grep.js";
export type { GrepOptions } from "./grep-options.js";
export { type ImageData, readImage } from "./image-file.js";
export { type DecodedFile, decodeFileBytes, type TextEncodingName } from "./text-decoding.js";
export { type EncodedText, encodeFileText } from "./text-encoding.js";
export { type UpdatePlanInput, updatePlanTool } from "./update-plan.js";
export { type ViewInput, viewTool } from "./view.js";

/**
 * The built-in tools every session offers, in the order they are listed to the model (Copilot
 * CLI's order). `task_complete` is not here: the loop adds it in autopilot.
 */
export function builtinTools(): AnyTool[] {
  return [viewTool, createTool, editTool, grepTool, globTool, bashTool, updatePlanTool];
}
