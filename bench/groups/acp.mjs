import { packageBin } from "../bin.mjs";
import { measureAcp } from "../faces.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { BENCH_PROMPT } from "../scenario.mjs";
import { summarize } from "../statistics.mjs";
import { atMost, atMostTimesFloor, cliCommand, minToMax, scenarioEnvironment } from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context @typedef {import("./common.mjs").Row} Row */

// ------------------------------------------------------------------------------------ ACP

/**
 * Figure 7a–c: `turnloop acp` spawn → initialize, spawn → prompt answered, peak RSS. The agent is
 * started as README tells editors to start it: the package's `bin` (`dist/cli/turnloop.cjs`).
 */
export async function benchAcp(context) {
  const model = await startFakeModelWorker({});
  const cliPath = packageBin(context.root);
  const command = `${cliCommand("acp").replace("dist/cli/main.js", "dist/cli/turnloop.cjs")}   # ACP client on stdio (bench/faces.mjs): initialize, session/new, session/prompt "${BENCH_PROMPT}"`;
  try {
    const env = scenarioEnvironment(context, model.baseUrl);
    const first = await measureAcp({
      cliPath,
      cwd: context.repo,
      env,
      prompt: BENCH_PROMPT,
    });
    if (!first.available) {
      const pending = `not measurable yet: ACP server not built (\`turnloop acp\`: ${first.reason})`;
      context.rows.push(
        {
          id: "7a",
          figure: "ACP: spawn → `initialize` answered",
          unit: "ms",
          target: atMostTimesFloor(1.5, "≤ ×1.5 `node -e 0`"),
          runs: "—",
          command,
          pending,
        },
        {
          id: "7b",
          figure: "ACP: spawn → `session/prompt` answered (the scenario)",
          unit: "ms",
          target: atMost(300, "≤ 0.3 s"),
          runs: "—",
          command,
          pending,
        },
        {
          id: "7c",
          figure: "ACP: peak RSS of the agent",
          unit: "bytes",
          runs: "—",
          command,
          pending,
        },
      );
      return;
    }
    const runs = [];
    for (let run = 0; run < context.settings.acpRuns; run++) {
      await model.reset();
      const result = await measureAcp({
        cliPath,
        cwd: context.repo,
        env,
        prompt: BENCH_PROMPT,
      });
      if (!result.available || result.stopReason !== "end_turn") {
        throw new Error(`ACP run failed: ${result.available ? result.stopReason : result.reason}`);
      }
      runs.push(result);
    }
    const runsText = `${context.settings.acpRuns} runs (+1 warm-up, which writes turnloop's code cache)`;
    const init = runs.map((run) => run.initializeMilliseconds);
    const prompt = runs.map((run) => run.promptMilliseconds);
    const rss = runs.map((run) => run.peakRssBytes);
    context.rows.push(
      {
        id: "7a",
        figure: "ACP: spawn → `initialize` answered",
        unit: "ms",
        value: summarize(init).p50,
        spread: minToMax(init),
        target: atMostTimesFloor(1.5, "≤ ×1.5 `node -e 0`"),
        floor: context.details.nodeFloor
          ? { value: context.details.nodeFloor.wall, label: "`node -e 0`" }
          : undefined,
        runs: runsText,
        command,
      },
      {
        id: "7b",
        figure: "ACP: spawn → `session/prompt` answered (the scenario)",
        unit: "ms",
        value: summarize(prompt).p50,
        spread: minToMax(prompt),
        target: atMost(300, "≤ 0.3 s"),
        floor: context.details.onePrompt
          ? {
              value: context.details.onePrompt.floorWall,
              label: "tiny node:http script, same 2 requests",
            }
          : undefined,
        runs: runsText,
        command,
      },
      {
        id: "7c",
        figure: "ACP: peak RSS of the agent (VmHWM before it is stopped)",
        unit: "bytes",
        target: atMost(62 * 1024 * 1024, "≤ 62 MiB"),
        value: summarize(rss).p50,
        spread: minToMax(rss),
        runs: runsText,
        command,
      },
    );
  } finally {
    await model.close();
  }
}
