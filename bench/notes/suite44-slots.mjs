// Where a vitest run's wall went, from its JSON report (bench/notes/suite44.md):
//   node bench/notes/suite44-slots.mjs <vitest.json> [workers]
// Files are put in slots by their start and end times (a file goes to the slot freed last before
// it started); for each slot: files, the empty time between files and when it ended. Then a
// replay of the same durations in the report's order and longest first, each file to the first
// free slot with a 0.15 s hand-over: what the order alone would change if no file's duration did.
import { readFileSync } from "node:fs";

const [reportPath, workersText = "2"] = process.argv.slice(2);
if (reportPath === undefined) {
  console.error("usage: node bench/notes/suite44-slots.mjs <vitest.json> [workers]");
  process.exit(64);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const files = report.testResults
  .map((file) => ({
    name: file.name.replace(/^.*?\/(?=test\/)/, ""),
    start: (file.startTime - report.startTime) / 1000,
    end: (file.endTime - report.startTime) / 1000,
  }))
  .sort((first, second) => first.start - second.start);

const slots = [];
for (const file of files) {
  const free = slots.filter((slot) => slot.end <= file.start + 0.005);
  const slot = free.sort((first, second) => second.end - first.end)[0];
  if (slot === undefined) {
    slots.push({ files: 1, empty: 0, end: file.end });
  } else {
    slot.files += 1;
    slot.empty += file.start - slot.end;
    slot.end = file.end;
  }
}
for (const [index, slot] of slots.entries()) {
  console.log(
    `slot ${index + 1}: ${slot.files} files, ${slot.empty.toFixed(1)} s empty between them, ends at ${slot.end.toFixed(1)} s`,
  );
}

function replay(order, workers) {
  const ends = new Array(workers).fill(0);
  for (const file of order) {
    const first = ends.indexOf(Math.min(...ends));
    ends[first] += file.end - file.start + 0.15;
  }
  return Math.max(...ends).toFixed(1);
}
const workers = Number(workersText);
const longestFirst = [...files].sort((a, b) => b.end - b.start - (a.end - a.start));
console.log(
  `replay with ${workers} slots: the report's order ${replay(files, workers)} s, longest first ${replay(longestFirst, workers)} s`,
);
