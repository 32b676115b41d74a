import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import {
  isSummaryRequest,
  limitedModel,
  requestTokens,
  viewEachFile,
  writeSixFiles,
} from "../support/context-limit.js";
import { printedSessionId, test } from "../support/fixtures.js";

// `contextWindows` keyed by a config profile's model id (`lab:fake-model`) is read first, then the
// entry of its provider type's id (`openai-compatible:fake-model`): README, "Long sessions:
// compaction". Before, sessions looked a profile's model up by its type's id only.

const WINDOW = 8_000;

test("a session on a profile's model compacts at the profile id's contextWindows entry, and config shows that entry", async ({
  cli,
  home,
  model,
  repository,
  loggedEvents,
}) => {
  await writeSixFiles(repository);
  const file = join(home, "config.json");
  await writeFile(
    file,
    JSON.stringify({
      model: "lab:fake-model",
      providers: { lab: { type: "openai-compatible", baseUrl: `${model.url}/v1` } },
      contextWindows: { "lab:fake-model": WINDOW, "openai-compatible:fake-model": 200_000 },
    }),
  );
  const env = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "", TURNLOOP_MAX_RETRIES: "0" };
  const shown = await cli(["config"], { env });
  expect(shown.stdout.split("\n").filter((line) => line.startsWith("contextWindow "))).toEqual([
    // Values in one column, after the longest name.
    `${"contextWindow".padEnd("contextWindows.openai-compatible:fake-model".length)} ${WINDOW} tokens    from contextWindows.lab:fake-model in ${file}`,
  ]);

  model.setResponder(limitedModel({ limit: WINDOW, conversation: viewEachFile }));
  const result = await cli(["-p", "read all files and summarize"], { env });
  expect([result.code, result.stdout]).toEqual([0, "finished\n"]);
  expect(result.stderr).toMatch(/^compacted the conversation \(threshold\): \d+ → \d+ tokens$/m);
  // Compacted before the window was reached: no request over it, none rejected.
  expect(model.requests.map((request) => request.status).filter((s) => s !== 200)).toEqual([]);
  expect(model.requests.every((request) => requestTokens(request.body) <= WINDOW)).toBe(true);
  expect(model.requests.some(isSummaryRequest)).toBe(true);
  const events = await loggedEvents(printedSessionId(result.stderr));
  expect(events.find((event) => event.type === "session.start")?.data.model).toBe("lab:fake-model");
});
