/**
 * Writes `src/tools/input-json-schemas.ts`: the JSON Schema of each built-in tool's input, as
 * `z.toJSONSchema(input, { io: "input", unrepresentable: "any" })` gives it without `$schema`
 * (what src/agent/tool-specifications.ts offers the model), so that a run does not convert the
 * seven schemas before its first model request (issue 26: ≈ 3 ms of CPU, zod's converter
 * compiled and run). Run it after changing a built-in tool's input schema:
 * `npm run build && node scripts/input-json-schemas.mjs` (it reads `tsc`'s output under
 * `dist/tools/`); test/agent/tool-specifications.test.ts fails until the file agrees.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { builtinTools } from "../dist/tools/index.js";

const OUTPUT = "src/tools/input-json-schemas.ts";

const schemas = Object.fromEntries(
  builtinTools().map((tool) => {
    const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.input, {
      io: "input",
      unrepresentable: "any",
    });
    return [tool.name, inputSchema];
  }),
);

writeFileSync(
  OUTPUT,
  `/**
 * The JSON Schema of each built-in tool's input, by tool name: \`z.toJSONSchema(input, { io:
 * "input", unrepresentable: "any" })\` without \`$schema\`, the form src/agent/tool-specifications.ts
 * offers the model. Written by scripts/input-json-schemas.mjs; do not edit.
 * test/agent/tool-specifications.test.ts checks it against the tools' zod schemas.
 */

import type { JsonObject } from "../events/events.js";

export const BUILTIN_INPUT_JSON_SCHEMAS: Readonly<Record<string, JsonObject>> = ${JSON.stringify(schemas)};
`,
);
execFileSync("npx", ["biome", "format", "--write", OUTPUT], { stdio: "inherit" });
