#!/usr/bin/env node
// Writes test/support/file-durations.json, the table the suite's file order reads
// (test/support/file-order.ts), from a vitest JSON report: each file's duration in milliseconds
// (endTime − startTime, rounded), by path from the repository's root, in path order.
//
//   npx vitest run --reporter=default --reporter=json --outputFile=/tmp/vitest.json
//   node scripts/test-file-durations.mjs /tmp/vitest.json
//
// Best from a CI run (a clean clone on CI's machine), whose report .ci/run writes; a file the
// report lacks (a new one) runs first until the table is written again.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const reportPath = process.argv[2];
if (reportPath === undefined) {
  console.error("usage: node scripts/test-file-durations.mjs <vitest JSON report>");
  process.exit(64);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
if (!Array.isArray(report.testResults)) {
  console.error(`${reportPath}: not a vitest JSON report (no testResults array)`);
  process.exit(65);
}
const durations = new Map();
for (const file of report.testResults) {
  // The report names files by absolute path on the machine that ran them; the table by path from
  // the root, so a report from another clone (CI's) serves too.
  const path = file.name.startsWith(root)
    ? relative(root, file.name)
    : file.name.replace(/^.*?\/(?=test\/)/, "");
  if (typeof file.startTime === "number" && typeof file.endTime === "number") {
    durations.set(path, Math.max(0, Math.round(file.endTime - file.startTime)));
  }
}
const sorted = Object.fromEntries(
  [...durations].sort(([first], [second]) => (first < second ? -1 : 1)),
);
const tablePath = join(root, "test/support/file-durations.json");
writeFileSync(tablePath, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${relative(root, tablePath)}: ${durations.size} files from ${reportPath}`);
