// Session 35 (bench/notes/server35.md): node bench/notes/server35-gaps.mjs <run folder kept by bench/scale-headless.mjs --keep>
// Per step of a prompt, the gap between consecutive events (ms), p50/p90/p99 over all sessions.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(process.argv[2], "turnloop-home/session-state");
const gaps = new Map();
const q = (a, p) => a[Math.min(a.length - 1, Math.floor(p * a.length))];
for (const id of readdirSync(dir)) {
  let text;
  try {
    text = readFileSync(join(dir, id, "events.jsonl"), "utf8");
  } catch {
    continue;
  }
  const events = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  for (let i = 1; i < events.length; i++) {
    const key = `${events[i - 1].type} → ${events[i].type}`;
    const d = Date.parse(events[i].timestamp) - Date.parse(events[i - 1].timestamp);
    if (!gaps.has(key)) {
      gaps.set(key, []);
    }
    gaps.get(key).push(d);
  }
}
for (const [k, a] of gaps) {
  a.sort((x, y) => x - y);
  console.log(k.padEnd(52), "n", a.length, "p50", q(a, 0.5), "p90", q(a, 0.9), "p99", q(a, 0.99));
}
