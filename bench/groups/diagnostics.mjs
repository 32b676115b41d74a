/** Diagnostics: CPU profiles, import costs per package, the files a real run loads. */

import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { binCommand, packageBin } from "../bin.mjs";
import { runInProcess, runMeasured } from "../child.mjs";
import { measureAcp } from "../faces.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { mainThreadProfile, summarizeProfile } from "../profile.mjs";
import { BENCH_PROMPT } from "../scenario.mjs";
import { summarize } from "../statistics.mjs";
import { scenarioEnvironment } from "./common.mjs";
import { filesLoaded } from "./loaded-files.mjs";

/** @typedef {import("./common.mjs").Context} Context @typedef {import("./common.mjs").Row} Row */

// ---------------------------------------------------------------------------- diagnostics

/** Modules whose import cost is measured, each in a fresh process. */
function importSpecifiers(context) {
  return [
    join(context.dist, "cli/arguments.js"),
    join(context.dist, "cli/prompt-command.js"),
    join(context.dist, "session/session.js"),
    join(context.dist, "tools/index.js"),
    join(context.dist, "llm/models.js"),
    join(context.dist, "acp/main.js"),
    join(context.dist, "server/main.js"),
    "zod",
    "@ai-sdk/openai-compatible",
    "@ai-sdk/openai",
    "@ai-sdk/anthropic",
    "ai",
    "@agentclientprotocol/sdk",
    "vscode-jsonrpc/node.js",
  ];
}

/**
 * Where the time and memory go: import costs, an RSS breakdown, the relay through each layer, and
 * CPU profiles of the one-prompt run, the relay, the per-turn loop and resume.
 */
export async function benchDiagnostics(context) {
  const { settings } = context;
  const imports = [];
  for (const specifier of importSpecifiers(context)) {
    const runs = [];
    for (let run = 0; run < settings.importRuns; run++) {
      runs.push(await runInProcess("import", { specifier }));
    }
    imports.push({
      specifier: specifier.startsWith(context.dist)
        ? `dist/${specifier.slice(context.dist.length + 1)}`
        : specifier,
      milliseconds: summarize(runs.map((run) => run.milliseconds)).p50,
      rssAddedBytes: summarize(runs.map((run) => run.rssAfterBytes - run.rssBeforeBytes)).p50,
    });
  }
  context.details.imports = imports;
  context.details.rssBreakdown = (
    await runInProcess("rss-breakdown", { dist: context.dist })
  ).steps;
  const layers = await runInProcess("relay-layers", {
    dist: context.dist,
    cwd: context.repo,
    home: context.home,
    deltas: settings.layerDeltas,
    rounds: settings.layerRounds,
  });
  context.details.layers = layers.layers;
  context.details.layerRounds = layers.rounds;
  context.details.requestLayers = await runInProcess("request-layers", {
    dist: context.dist,
    cwd: context.repo,
    home: context.home,
    requests: 20,
    rounds: settings.layerRounds,
  });
  context.details.loadedFiles = await filesLoaded(context);
  if (!settings.profiles) {
    return;
  }
  const profiles = {};
  const profileDirectory = (name) => {
    const directory = join(context.temp, "profiles", name);
    mkdirSync(directory, { recursive: true });
    return directory;
  };
  const flags = (directory) => [
    "--cpu-prof",
    "--cpu-prof-interval",
    "200",
    "--cpu-prof-dir",
    directory,
  ];

  // The one-prompt CLI run, started as 1a's is: the package's `bin`.
  const model = await startFakeModelWorker({});
  try {
    const directory = profileDirectory("one-prompt");
    const cli = binCommand(packageBin(context.root), ["-p", BENCH_PROMPT], flags(directory));
    const result = await runMeasured(cli.command, cli.args, {
      cwd: context.repo,
      env: scenarioEnvironment(context, model.baseUrl),
    });
    if (result.code === 0) {
      profiles.onePrompt = summarizeProfile(mainThreadProfile(directory) ?? "");
    }
  } finally {
    await model.close();
  }
  const inProcessProfile = async (name, benchmark, options) => {
    const directory = profileDirectory(name);
    await runInProcess(benchmark, options, flags(directory));
    const path = mainThreadProfile(directory);
    return path === undefined ? undefined : summarizeProfile(path);
  };
  const base = { dist: context.dist, cwd: context.repo, home: context.home };
  profiles.relay = await inProcessProfile("relay", "relay", {
    ...base,
    deltas: settings.relayDeltas,
    tokensPerSecond: 0,
  });
  profiles.turns = await inProcessProfile("turns", "turn-overhead", { ...base, turns: 200 });
  const acpModel = await startFakeModelWorker({});
  try {
    const directory = profileDirectory("acp");
    const result = await measureAcp({
      cliPath: context.cliPath,
      cwd: context.repo,
      env: scenarioEnvironment(context, acpModel.baseUrl),
      prompt: BENCH_PROMPT,
      nodeArguments: flags(directory),
    });
    const path = result.available ? mainThreadProfile(directory) : undefined;
    if (path !== undefined) {
      profiles.acp = summarizeProfile(path);
    }
  } finally {
    await acpModel.close();
  }
  const resume = context.details.resume;
  if (resume !== undefined) {
    copyFileSync(resume.pristine, resume.path);
    profiles.resume = await inProcessProfile("resume", "resume", {
      dist: context.dist,
      home: resume.home,
      sessionId: resume.sessionId,
    });
  }
  context.details.profiles = profiles;
}
