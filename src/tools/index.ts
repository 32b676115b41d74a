import { bashTool } from "./bash.js";
import type { AnyTool } from "./define-tool.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { viewTool } from "./view.js";

export { type BashInput, bashTool } from "./bash.js";
export {
  type AnyTool,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolKind,
  type ToolResult,
} from "./define-tool.js";
export { type GlobInput, globTool } from "./glob.js";
export { type GrepOptions, grepTool, runGrep } from "./grep.js";
export { type DecodedFile, decodeFileBytes, type TextEncodingName } from "./text-decoding.js";
export { type ViewInput, viewTool } from "./view.js";

/** The built-in tools every session offers, in the order they are listed to the model. */
export function builtinTools(): AnyTool[] {
  return [viewTool, grepTool, globTool, bashTool];
}
