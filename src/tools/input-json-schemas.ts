/**
 * The JSON Schema of each built-in tool's input, by tool name: `z.toJSONSchema(input, { io:
 * "input", unrepresentable: "any" })` without `$schema`, the form src/agent/tool-specifications.ts
 * offers the model. Written by scripts/input-json-schemas.mjs; do not edit.
 * test/agent/tool-specifications.test.ts checks it against the tools' zod schemas.
 */

import type { JsonObject } from "../events/events.js";

export const BUILTIN_INPUT_JSON_SCHEMAS: Readonly<Record<string, JsonObject>> = {
  view: {
    type: "object",
    properties: {
      path: { type: "string" },
      view_range: {
        description: "[start, end], 1-based, inclusive; end -1 = end of file",
        minItems: 1,
        maxItems: 2,
        type: "array",
        items: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
      },
    },
    required: ["path"],
  },
  create: {
    type: "object",
    properties: {
      path: { type: "string" },
      file_text: { type: "string" },
      overwrite: { description: "Replace an existing file", type: "boolean" },
    },
    required: ["path", "file_text"],
  },
  edit: {
    type: "object",
    properties: {
      path: { type: "string" },
      old_str: { type: "string" },
      new_str: { type: "string" },
    },
    required: ["path", "old_str", "new_str"],
  },
  grep: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression (Rust regex syntax)" },
      path: { description: "File or folder (default: working directory)", type: "string" },
      glob: { description: 'e.g. "*.ts", "src/**/*.{js,jsx}"', type: "string" },
      type: { description: 'File type, e.g. "js", "py", "rust"', type: "string" },
      output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
      "-i": { type: "boolean" },
      ignore_case: { type: "boolean" },
      "-n": { type: "boolean" },
      "-A": { type: "number", minimum: 0 },
      "-B": { type: "number", minimum: 0 },
      "-C": { type: "number", minimum: 0 },
      context: { type: "number", minimum: 0 },
      head_limit: { type: "number", exclusiveMinimum: 0 },
      multiline: { type: "boolean" },
    },
    required: ["pattern"],
  },
  glob: {
    type: "object",
    properties: { pattern: { type: "string" }, path: { type: "string" } },
    required: ["pattern"],
  },
  bash: {
    type: "object",
    properties: {
      command: { type: "string" },
      description: { description: "A few words on what the command does", type: "string" },
      timeout: {
        description: "Seconds (default 120, at most 600)",
        type: "number",
        exclusiveMinimum: 0,
        maximum: 600,
      },
    },
    required: ["command"],
  },
  update_plan: {
    type: "object",
    properties: {
      entries: {
        type: "array",
        items: {
          type: "object",
          properties: {
            content: { type: "string", minLength: 1 },
            priority: { type: "string", enum: ["high", "medium", "low"] },
            status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          },
          required: ["content", "priority", "status"],
        },
      },
    },
    required: ["entries"],
  },
};
