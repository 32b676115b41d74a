#!/usr/bin/env node
/**
 * Session view benchmark (issue 18). Run after `npm run build` (or `npm run bench:view`):
 *
 *   node bench/viewer.mjs [--turns N] [--runs N]
 *
 * Writes a synthetic session of N turns (default 10,000; bench/long-session.mjs), runs the built
 * `turnloop sessions view` on it, and opens the page in headless Chromium (the system's, as in
 * the tests; TURNLOOP_CHROMIUM overrides the path) in a fresh tab per run, reading the time from
 * navigation start to the first frame after the page's render (`data-painted-ms`: performance.now()
 * in the task after the animation frame that follows the header, chart and visible rows), then to the last turn's row after a
 * scroll to the bottom. Targets: render < 2 s, file < 5 × the log. The results replace the
 * session-view section of bench/RESULTS.md (the other figures are kept).
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./chromium.mjs";
import { longSessionLog } from "./long-session.mjs";
import { SECTION_END, SECTION_START, withViewerSection } from "./viewer-section.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "dist", "cli", "main.js");
const { values } = parseArgs({ options: { turns: { type: "string" }, runs: { type: "string" } } });
const turns = Number(values.turns ?? 10_000);
const runs = Number(values.runs ?? 5);

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

const home = mkdtempSync(join(tmpdir(), "turnloop-bench-view-"));
try {
  const folder = join(home, "session-state", "long-session");
  mkdirSync(folder, { recursive: true });
  const logPath = join(folder, "events.jsonl");
  writeFileSync(logPath, longSessionLog(turns));
  const out = join(home, "view.html");
  const writes = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [cli, "sessions", "view", "long-session", "--no-open", "--out", out],
      {
        env: { ...process.env, TURNLOOP_HOME: home },
        encoding: "utf8",
      },
    );
    if (result.status !== 0) {
      throw new Error(`turnloop sessions view failed: ${result.stderr}`);
    }
    writes.push(performance.now() - started);
  }
  const logBytes = statSync(logPath).size;
  const htmlBytes = statSync(out).size;
  const profile = mkdtempSync(join(tmpdir(), "turnloop-bench-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
  });
  const renders = [];
  const scrolls = [];
  try {
    for (let run = 0; run < runs; run += 1) {
      const page = await context.newPage();
      await page.goto(pathToFileURL(out).href, { waitUntil: "load" });
      await page.waitForSelector("body[data-painted-ms]");
      renders.push(Number(await page.getAttribute("body", "data-painted-ms")));
      const scrolled = await page.evaluate(async (last) => {
        const started = performance.now();
        const scroller = document.getElementById("timeline-scroll");
        scroller.scrollTop = scroller.scrollHeight;
        while (!document.querySelector(`.turn-row[data-turn="${last}"]`)) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        return performance.now() - started;
      }, turns);
      scrolls.push(scrolled);
      await page.close();
    }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const version = execFileSync(CHROMIUM_PATH, ["--version"], { encoding: "utf8" }).trim();
  const ratio = htmlBytes / logBytes;
  const render = median(renders);
  const rows = [
    [
      "page render in Chromium: navigation start → first frame with the header, chart and visible rows (median)",
      `${Math.round(render)} ms`,
      `${Math.round(Math.min(...renders))} – ${Math.round(Math.max(...renders))} ms`,
      "< 2 s",
      render < 2000 ? "met" : "**not met**",
    ],
    [
      "scroll to the bottom → last turn's row drawn (median)",
      `${Math.round(median(scrolls))} ms`,
      `${Math.round(Math.min(...scrolls))} – ${Math.round(Math.max(...scrolls))} ms`,
      "— (information)",
      "info",
    ],
    [
      "HTML file size / events.jsonl size",
      `×${ratio.toFixed(2)} (${mib(htmlBytes)} / ${mib(logBytes)})`,
      "—",
      "< ×5",
      ratio < 5 ? "met" : "**not met**",
    ],
    [
      "`turnloop sessions view` wall time (read, fold, write; median)",
      `${Math.round(median(writes))} ms`,
      `${Math.round(Math.min(...writes))} – ${Math.round(Math.max(...writes))} ms`,
      "— (information)",
      "info",
    ],
  ];
  const section = [
    SECTION_START,
    "## Session view (`turnloop sessions view`)",
    "",
    `Written by \`node bench/viewer.mjs${process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(" ")}` : ""}\` (or \`npm run bench:view\`) on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, ${version}, headless.`,
    `Session: ${turns.toLocaleString("en-US")} turns from bench/long-session.mjs (a tool call per turn, 1 KB results, a prompt per 50 turns, a compaction per 2,000), ${runs} runs, a fresh tab each.`,
    "",
    "| figure | result | spread (min–max) | target | status |",
    "|---|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    SECTION_END,
  ].join("\n");
  const resultsPath = join(here, "RESULTS.md");
  writeFileSync(resultsPath, withViewerSection(readFileSync(resultsPath, "utf8"), section));
  process.stdout.write(`${section}\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
