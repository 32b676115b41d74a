/**
 * What a real run of the bundled CLI loads: the one-prompt scenario under `-p`, and the ACP
 * scenario (`initialize`, `session/new`, `session/prompt`), each started as users start it (the
 * `bin`, bench/bin.mjs) with the tests' module recorder (`node --import
 * test/support/module-recorder.mjs`, which appends every module's URL to a file as it loads).
 * Whole runs: everything loaded up to the process's exit.
 */

import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { binCommand, packageBin } from "../bin.mjs";
import { runMeasured } from "../child.mjs";
import { measureAcp } from "../faces.mjs";
import { startFakeModelWorker } from "../fake-model.mjs";
import { bucketOf } from "../profile.mjs";
import { BENCH_PROMPT } from "../scenario.mjs";
import { checkScenarioRun, scenarioEnvironment } from "./common.mjs";

/** @typedef {import("./common.mjs").Context} Context */

const RECORDER = fileURLToPath(new URL("../../test/support/module-recorder.mjs", import.meta.url));

/**
 * @typedef {object} LoadedFiles
 * @property {number} files Unique files read (bundle files and package files), Node's own excluded.
 * @property {number} bundleFiles Files of turnloop's bundle (`dist/cli/**`, its scripts in `dist/cli/scripts/` included).
 * @property {number} sourceModules Source modules those bundle files hold (`dist/cli/chunks/inputs.json`).
 * @property {number} builtins Node's own modules (`node:…`).
 * @property {Record<string, number>} perPackage Files read outside the bundle, per package.
 */

/**
 * The files each face's scenario loads.
 * @param {Context} context
 * @returns {Promise<{prompt: LoadedFiles, acp: LoadedFiles | undefined}>}
 */
export async function filesLoaded(context) {
  return {
    prompt: await recordRun(context, "prompt"),
    acp: await recordRun(context, "acp"),
  };
}

/**
 * @param {Context} context
 * @param {"prompt" | "acp"} face
 */
async function recordRun(context, face) {
  const log = join(context.temp, `loaded-files-${face}.txt`);
  rmSync(log, { force: true });
  const model = await startFakeModelWorker({});
  try {
    const env = { ...scenarioEnvironment(context, model.baseUrl), TURNLOOP_TEST_MODULE_LOG: log };
    const nodeArguments = ["--import", RECORDER];
    if (face === "prompt") {
      const cli = binCommand(packageBin(context.root), ["-p", BENCH_PROMPT], nodeArguments);
      const result = await runMeasured(cli.command, cli.args, { cwd: context.repo, env });
      checkScenarioRun(result, await model.requests());
    } else {
      const result = await measureAcp({
        cliPath: context.cliPath,
        cwd: context.repo,
        env,
        prompt: BENCH_PROMPT,
        nodeArguments,
      });
      if (!result.available) {
        return undefined;
      }
    }
  } finally {
    await model.close();
  }
  return countLoaded(readFileSync(log, "utf8"), context.cliPath);
}

/**
 * @param {string} text The recorder's lines.
 * @param {string} cliPath `dist/cli/main.js`; its folder holds the bundle and `chunks/inputs.json`.
 * @returns {LoadedFiles}
 */
function countLoaded(text, cliPath) {
  const cliFolder = dirname(cliPath);
  /** @type {Record<string, string[]>} */
  const bundled = JSON.parse(readFileSync(join(cliFolder, "chunks", "inputs.json"), "utf8"));
  const urls = new Set(text.split("\n").filter((line) => line !== ""));
  const sources = new Set();
  /** @type {Record<string, number>} */
  const perPackage = {};
  let bundleFiles = 0;
  let builtins = 0;
  for (const url of urls) {
    if (!url.startsWith("file:")) {
      builtins++;
      continue;
    }
    // A script of `dist/cli/scripts/` holds what the file at the same place under `dist/cli/`
    // does (test/support/loaded-modules.ts reads them the same way).
    const inBundle = bundled[relative(cliFolder, fileURLToPath(url)).replace(/^scripts\//, "")];
    if (inBundle !== undefined) {
      bundleFiles++;
      for (const source of inBundle) {
        sources.add(source);
      }
      continue;
    }
    const bucket = bucketOf({ url, functionName: "" }).replace(/^package /, "");
    perPackage[bucket] = (perPackage[bucket] ?? 0) + 1;
  }
  return {
    files: urls.size - builtins,
    bundleFiles,
    sourceModules: sources.size,
    builtins,
    perPackage,
  };
}
