/**
 * Serves the benchmarks' fake model (fake-model.mjs) until Ctrl-C, to try turnloop without an API
 * key: `node bench/fake-model-serve.mjs` prints the two variables to set. Every prompt gets the
 * benchmark scenario's answer: one `view` of `notes.md` (when the history has no tool result yet),
 * then a short text.
 */

import { startFakeModel } from "./fake-model.mjs";

const model = await startFakeModel();
process.stdout.write(
  [
    "fake model serving; in another shell:",
    "  export TURNLOOP_MODEL=openai-compatible:bench-model",
    `  export TURNLOOP_BASE_URL=${model.baseUrl}`,
    "Ctrl-C stops it.",
    "",
  ].join("\n"),
);
process.once("SIGINT", () => {
  model.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
