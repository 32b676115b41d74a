/**
 * The benchmark scenario shared by every benchmark: the model name, the prompt, and the small
 * repository the prompt is asked in.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The model the benchmarks use: an OpenAI-compatible server, i.e. the fake model. */
export const BENCH_MODEL = "openai-compatible:bench-model";

/** The prompt of the scenario (one prompt, two model turns, one file read). */
export const BENCH_PROMPT = "What does notes.md say?";

/**
 * Creates the scenario's repository in `directory`: a small `notes.md` (the file the model reads)
 * and a couple of source files, as in a real small repository.
 * @param {string} directory
 */
export function createScenarioRepository(directory) {
  mkdirSync(join(directory, "src"), { recursive: true });
  const notes = [
    "# Notes",
    "",
    "This is a small project used by the turnloop benchmarks.",
    "It has one source file and these notes.",
    "",
    "## Decisions",
    "",
    "- Keep the event log append-only.",
    "- Load provider modules lazily.",
    "- Measure before optimising.",
    "",
    "## Open questions",
    "",
    "- Should the log be compressed?",
    "- How long should sessions be kept?",
  ];
  writeFileSync(join(directory, "notes.md"), `${notes.join("\n")}\n`);
  writeFileSync(
    join(directory, "src", "index.js"),
    'export function greet(name) {\n  return "Hello, " + name + "!";\n}\n',
  );
  writeFileSync(join(directory, ".gitignore"), "node_modules\n");
}
